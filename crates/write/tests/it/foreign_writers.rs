//! Programs that take no lspedit lock writing a file while lspedit switches it: their writes
//! are never lost (issue 25). The deterministic cases, one writer at each point of the switch,
//! are the workspace's unit tests; these race real threads against the real switch.

use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use lspedit_write::{Replaced, Workspace};

// Regression (issue 25): a continuous appender (`echo >> f` in a loop) lost lines in 638 of
// 1,000 runs of an apply.
#[test]
fn a_continuous_appender_loses_no_line() {
    const SWITCHES: usize = 1_000;
    let dir = tempfile::tempdir().unwrap();
    let ws = Workspace::open(dir.path()).unwrap();
    let path = ws.root().join("f.txt");
    std::fs::write(&path, "").unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let appender = {
        let (stop, path) = (Arc::clone(&stop), path.clone());
        std::thread::spawn(move || {
            let mut n = 0usize;
            while !stop.load(Ordering::Relaxed) {
                // What `echo ... >> f.txt` does: open for appending, write, close.
                let mut f = std::fs::OpenOptions::new()
                    .append(true)
                    .open(&path)
                    .unwrap();
                f.write_all(format!("appended {n}\n").as_bytes()).unwrap();
                n += 1;
                // Jitter, not synchronisation: pauses of varying length between appends, so
                // some switches find the file still and go through, at varying points of them.
                for _ in 0..(n.wrapping_mul(2_654_435_761) % 5_000) {
                    std::hint::spin_loop();
                }
            }
            n
        })
    };
    let (mut done, mut changed) = (0, 0);
    for i in 0..SWITCHES {
        // lspedit's write: the file as read, with one line of ours in front.
        let old = std::fs::read(&path).unwrap();
        let mut new = format!("ours {i}\n").into_bytes();
        new.extend_from_slice(&old);
        match ws
            .replace_verified("f.txt", Some(&old), Some(&new), None)
            .unwrap()
        {
            Replaced::Done => done += 1,
            Replaced::Changed { .. } => changed += 1,
        }
    }
    stop.store(true, Ordering::Relaxed);
    let appended = appender.join().unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let mut seen = vec![0usize; appended];
    for line in text.lines() {
        if let Some(n) = line.strip_prefix("appended ") {
            seen[n.parse::<usize>().unwrap()] += 1;
        }
    }
    let lost: Vec<usize> = (0..appended).filter(|&n| seen[n] == 0).collect();
    let doubled: Vec<usize> = (0..appended).filter(|&n| seen[n] > 1).collect();
    eprintln!("{appended} lines appended; {done} switches done, {changed} changed");
    let first = |v: &[usize]| v[..v.len().min(10)].to_vec();
    assert!(
        lost.is_empty(),
        "{} lines lost: {:?}...",
        lost.len(),
        first(&lost)
    );
    assert!(
        doubled.is_empty(),
        "{} lines doubled: {:?}...",
        doubled.len(),
        first(&doubled)
    );
    // Every switch reported done is in the file.
    let ours = text.lines().filter(|l| l.starts_with("ours ")).count();
    assert_eq!(ours, done, "a switch reported done is missing");
}
