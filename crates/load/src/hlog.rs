//! The interval log (`.hlog`): the three histograms of each second of the run,
//! tagged `response`, `service` and `lag`, in HdrHistogram's interval-log
//! format (V2, deflate-compressed, base64), for latency over time. A thread
//! owns the file and writes each second as it closes, so memory stays bounded
//! for any duration; values are ns, maxima written in ms.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;
use std::sync::mpsc::{sync_channel, SyncSender};
use std::thread::JoinHandle;
use std::time::{Duration, SystemTime};

use hdrhistogram::serialization::interval_log::{IntervalLogWriterBuilder, Tag};
use hdrhistogram::serialization::V2DeflateSerializer;
use hdrhistogram::Histogram;

pub const TAGS: [&str; 3] = ["response", "service", "lag"];
const INTERVAL_NS: u64 = 1_000_000_000;
/// Seconds the writer may fall behind before recording waits for it.
const BACKLOG: usize = 64;

struct Interval {
    second: u64,
    histograms: [Histogram<u64>; 3],
}

pub(crate) struct IntervalLog {
    sender: SyncSender<Interval>,
    writer: JoinHandle<io::Result<()>>,
    second: u64,
    histograms: [Histogram<u64>; 3],
}

impl IntervalLog {
    /// Creates the file now (a path that cannot be written fails before the run).
    pub fn create(path: &Path, empty: &Histogram<u64>, start: SystemTime) -> io::Result<IntervalLog> {
        let file = File::create(path)?;
        let (sender, intervals) = sync_channel::<Interval>(BACKLOG);
        let writer = std::thread::Builder::new().name("brewput-hlog".into()).spawn(move || {
            let mut out = BufWriter::new(file);
            let mut serializer = V2DeflateSerializer::new();
            let mut log = IntervalLogWriterBuilder::new()
                .add_comment("brewput load: response, service and lag per second, in ns")
                .with_start_time(start)
                .with_base_time(start)
                .with_max_value_divisor(1e6)
                .begin_log_with(&mut out, &mut serializer)?;
            for interval in intervals {
                for (tag, histogram) in TAGS.iter().zip(&interval.histograms) {
                    log.write_histogram(histogram, Duration::from_secs(interval.second), Duration::from_secs(1),
                                        Tag::new(tag))
                        .map_err(|e| io::Error::other(e.to_string()))?;
                }
            }
            drop(log);
            out.flush()
        })?;
        Ok(IntervalLog { sender, writer, second: 0, histograms: [empty.clone(), empty.clone(), empty.clone()] })
    }

    /// Records one answer (values in ns) in the second it was done.
    pub fn record(&mut self, done_ns: u64, values: [u64; 3]) {
        let second = done_ns / INTERVAL_NS;
        while self.second < second {
            self.close_second();
        }
        for (histogram, value) in self.histograms.iter_mut().zip(values) {
            histogram.saturating_record(value.max(1));
        }
    }

    fn close_second(&mut self) {
        let histograms = self.histograms.clone();
        self.histograms.iter_mut().for_each(Histogram::reset);
        // A writer that failed has dropped its end: its error is told by `finish`.
        let _ = self.sender.send(Interval { second: self.second, histograms });
        self.second += 1;
    }

    /// Writes the last second and closes the file.
    pub fn finish(mut self) -> Result<(), String> {
        self.close_second();
        drop(self.sender);
        match self.writer.join() {
            Ok(result) => result.map_err(|e| e.to_string()),
            Err(_) => Err("the interval log's writer failed".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::engine::general_purpose::STANDARD;
    use base64::Engine;
    use hdrhistogram::serialization::interval_log::{IntervalLogIterator, LogEntry};
    use hdrhistogram::serialization::Deserializer;

    #[test]
    fn each_second_is_written_per_tag_and_reads_back() {
        let path = std::env::temp_dir().join(format!("brewput-hlog-test-{}.hlog", std::process::id()));
        let empty = brewput_measure::latency::histogram();
        let mut log = IntervalLog::create(&path, &empty, SystemTime::now()).unwrap();
        // Two answers in second 0, none in second 1, one in second 2.
        log.record(100_000_000, [5_000_000, 4_000_000, 1_000_000]);
        log.record(900_000_000, [7_000_000, 6_000_000, 1_000_000]);
        log.record(2_500_000_000, [9_000_000, 2_000_000, 7_000_000]);
        log.finish().unwrap();
        let text = std::fs::read(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        let mut seen = Vec::new();
        for entry in IntervalLogIterator::new(&text) {
            if let Ok(LogEntry::Interval(h)) = entry {
                let bytes = STANDARD.decode(h.encoded_histogram()).unwrap();
                let decoded: Histogram<u64> = Deserializer::new().deserialize(&mut &bytes[..]).unwrap();
                seen.push((h.tag().unwrap().as_str().to_string(), h.start_timestamp().as_secs(), decoded.len(),
                           decoded.max()));
            }
        }
        assert_eq!(seen.len(), 9);
        assert_eq!(seen[0], ("response".to_string(), 0, 2, empty.highest_equivalent(7_000_000)));
        assert_eq!((seen[4].1, seen[4].2), (1, 0));
        assert_eq!((seen[8].0.as_str(), seen[8].1, seen[8].2), ("lag", 2, 1));
    }
}
