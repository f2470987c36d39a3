//! The files a run reads before it starts (a request body, a PEM of trusted
//! certificates): regular files only, so that a FIFO cannot hang the run nor
//! a device feed it without end, and never more than a bound.

use std::fs::File;
use std::io::{self, Read};

/// The whole of the regular file at `path`, at most `most` bytes; otherwise
/// why not, in words.
pub(crate) fn read_bounded(path: &str, most: u64) -> Result<Vec<u8>, String> {
    let meta = std::fs::metadata(path).map_err(|e| words(&e))?;
    if meta.is_dir() {
        return Err("is a folder, not a file".into());
    }
    if !meta.is_file() {
        return Err("is not a regular file".into());
    }
    if meta.len() > most {
        return Err(format!("{} is more than the {} a run reads", size(meta.len()), size(most)));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    File::open(path)
        .and_then(|f| f.take(most + 1).read_to_end(&mut bytes))
        .map_err(|e| words(&e))?;
    if bytes.len() as u64 > most {
        return Err(format!("grew beyond the {} a run reads while it was read", size(most)));
    }
    Ok(bytes)
}

fn words(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::NotFound => "no such file".into(),
        io::ErrorKind::PermissionDenied => "cannot be read: permission denied".into(),
        _ => {
            let text = e.to_string();
            format!("cannot be read: {}", text.split(" (os error").next().unwrap_or(&text).to_lowercase())
        }
    }
}

fn size(bytes: u64) -> String {
    const MIB: u64 = 1 << 20;
    if bytes >= MIB {
        format!("{:.1} MiB", bytes as f64 / MIB as f64).replace(".0 MiB", " MiB")
    } else {
        format!("{bytes} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_file_within_its_bound_and_refuses_the_rest_in_words() {
        let dir = std::env::temp_dir().join(format!("brewput-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("body");
        std::fs::write(&file, b"0123456789").unwrap();
        let path = file.to_str().unwrap();
        assert_eq!(read_bounded(path, 10).unwrap(), b"0123456789");
        assert_eq!(read_bounded(path, 9).unwrap_err(), "10 bytes is more than the 9 bytes a run reads");
        assert_eq!(read_bounded(dir.to_str().unwrap(), 10).unwrap_err(), "is a folder, not a file");
        assert_eq!(read_bounded("/dev/zero", 10).unwrap_err(), "is not a regular file");
        assert_eq!(read_bounded(dir.join("none").to_str().unwrap(), 10).unwrap_err(), "no such file");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
