//! Small helpers the test suites and benchmarks that drive language servers share: copying a
//! test project into a scratch directory, whether a real-server test runs or is skipped, and
//! the nearest-rank percentile of timings.

use std::path::Path;
use std::time::Duration;

/// Copy the project at `src` into `dst` (created if missing), leaving out build output and
/// installed packages (`target/`, `node_modules/`) at any depth: a server then indexes only
/// the project's own files.
pub fn copy_project(src: &Path, dst: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dst)?;
    for entry in std::fs::read_dir(src)? {
        let entry = entry?;
        let name = entry.file_name();
        if name == "target" || name == "node_modules" {
            continue;
        }
        let to = dst.join(&name);
        if entry.file_type()?.is_dir() {
            copy_project(&entry.path(), &to)?;
        } else {
            std::fs::copy(entry.path(), &to)?;
        }
    }
    Ok(())
}

/// Whether a test that needs the real server `server` runs: true when it is `installed`.
/// Otherwise the test is skipped (said on stderr), except under `LSPEDIT_REQUIRE_SERVERS=1`
/// (CI, `scripts/test`), where a missing server fails the test.
#[allow(clippy::print_stderr)] // A skipped test says why where `cargo test` shows it.
pub fn require_installed(server: &str, installed: bool) -> bool {
    if installed {
        return true;
    }
    assert!(
        std::env::var("LSPEDIT_REQUIRE_SERVERS").as_deref() != Ok("1"),
        "{server} is not installed but LSPEDIT_REQUIRE_SERVERS=1; run scripts/install-servers"
    );
    eprintln!("skipping: {server} is not installed (run scripts/install-servers)");
    false
}

/// Nearest-rank percentile `p` (0..=1) of `sorted` samples; zero when there are none.
pub fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentile_is_nearest_rank() {
        let ms: Vec<Duration> = (1..=20).map(Duration::from_millis).collect();
        assert_eq!(percentile(&ms, 0.5), Duration::from_millis(10));
        assert_eq!(percentile(&ms, 0.95), Duration::from_millis(19));
        assert_eq!(percentile(&ms, 1.0), Duration::from_millis(20));
        assert_eq!(percentile(&ms, 0.0), Duration::from_millis(1));
        assert_eq!(percentile(&[], 0.5), Duration::ZERO);
    }

    #[test]
    fn copy_project_leaves_out_build_output() {
        let src = tempfile::tempdir().unwrap();
        let dst = tempfile::tempdir().unwrap();
        for p in [
            "a.rs",
            "src/b.rs",
            "target/debug/x",
            "web/node_modules/m/i.js",
        ] {
            let p = src.path().join(p);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, p.to_string_lossy().as_bytes()).unwrap();
        }
        copy_project(src.path(), dst.path()).unwrap();
        assert!(dst.path().join("a.rs").is_file());
        assert!(dst.path().join("src/b.rs").is_file());
        assert!(!dst.path().join("target").exists());
        assert!(!dst.path().join("web/node_modules").exists());
        assert!(dst.path().join("web").is_dir());
    }
}
