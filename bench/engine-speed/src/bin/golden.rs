//! golden: runs every compiled model in a folder through the engine and writes
//! each summary, as the Python binding receives it, to another folder; so a
//! refactoring of the engine can be checked to change no result, bit for bit,
//! without rebuilding the Python extension (bench/engine-speed/golden.py
//! writes the inputs and compares the outputs).
//!
//! Usage: golden INPUTS OUTPUTS   (each INPUTS/NAME.json: {"model": ..., "settings": ...})

use std::fs;
use std::path::Path;

use brewput_sim::{run_json, Control};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [inputs, outputs] = args.as_slice() else {
        eprintln!("usage: golden INPUTS OUTPUTS");
        std::process::exit(2);
    };
    fs::create_dir_all(outputs).unwrap_or_else(|e| fail(&format!("{outputs}: {e}")));
    let mut names: Vec<_> = fs::read_dir(inputs)
        .unwrap_or_else(|e| fail(&format!("{inputs}: {e}")))
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|x| x == "json"))
        .collect();
    names.sort();
    for path in names {
        let text = fs::read_to_string(&path).unwrap_or_else(|e| fail(&format!("{}: {e}", path.display())));
        let input: serde_json::Value =
            serde_json::from_str(&text).unwrap_or_else(|e| fail(&format!("{}: {e}", path.display())));
        let result = match run_json(&input["model"].to_string(), &input["settings"].to_string(), &Control::default()) {
            Ok(summary) => summary,
            Err(e) => format!("error: {e}"),
        };
        let name = path.file_name().expect("a file");
        fs::write(Path::new(outputs).join(name), result).unwrap_or_else(|e| fail(&format!("{outputs}: {e}")));
    }
}

fn fail(why: &str) -> ! {
    eprintln!("golden: {why}");
    std::process::exit(2);
}
