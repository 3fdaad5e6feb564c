//! CPU burners beside a measure (`real --burn N`): N busy loops at normal priority, each a
//! process of its own (`sh -c 'while :; do :; done'`), as `scripts/burn` runs them; killed and
//! reaped when dropped, whatever the measure's outcome.

use std::process::{Child, Command, Stdio};

use anyhow::{Context, Result};

/// The running burners; none for `start(0)`.
pub struct Burners(Vec<Child>);

impl Burners {
    pub fn start(n: usize) -> Result<Self> {
        let mut burners = Burners(Vec::with_capacity(n));
        for _ in 0..n {
            let child = Command::new("sh")
                .args(["-c", "while :; do :; done"])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .context("starting a CPU burner (sh)")?;
            burners.0.push(child);
        }
        if n > 0 {
            eprintln!("bench: {n} CPU burners running");
        }
        Ok(burners)
    }
}

impl Drop for Burners {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
        }
        for c in &mut self.0 {
            let _ = c.wait();
        }
    }
}
