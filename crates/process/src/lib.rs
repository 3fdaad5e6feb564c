//! lspedit-process: how lspedit runs a program, the one rule for every child it starts.
//!
//! - Language servers ([`spawn`]): own process group, piped stdio, only the environment given,
//!   stderr drained into a bounded buffer, the parent-death signal and the Landlock ruleset of
//!   [`sandbox`] applied between fork and exec, and the whole group killed on every way out
//!   ([`GroupGuard`], [`Groups`], and a watchdog for when lspedit itself is killed).
//! - Short-lived children ([`run_bounded`]: an installer step, a validation command, a
//!   benchmarked tool): stdin closed, own process group, output capped, the group killed at its
//!   timeout and on return.
//! - What a caller verifies with (`/proc`): [`live_group_members`], [`wait_group_gone`],
//!   [`group_cpu_ticks`], [`group_rss_kib`].
//!
//! On Windows a process group is a Job Object (`os_windows.rs`): the child is created
//! suspended, put into a kill-on-close job and resumed; killing the group terminates the job,
//! and the job dies with lspedit. There is no sandbox there ([`sandbox`]).
//!
//! A language server is rarely one process (typescript-language-server runs tsserver, the
//! TypeScript 7 launcher runs the native binary, rust-analyzer runs cargo), so killing the pid
//! we spawned is not enough: each child gets its own process group and we kill the group.
//!
//! Knows nothing of LSP or of which program may run: the caller decides that (`lspedit-servers`)
//! and hands over the program, its arguments, its environment and its [`sandbox::Confinement`].

pub mod own;
pub mod sandbox;
#[cfg(target_os = "linux")]
pub mod seccomp;

#[cfg(unix)]
mod os_unix;
#[cfg(unix)]
pub use os_unix::{
    group_cpu_ticks, group_rss_kib, kill_group, live_group_members, wait_group_gone,
};
#[cfg(windows)]
mod os_windows;
#[cfg(windows)]
pub use os_windows::{
    group_cpu_ticks, group_rss_kib, kill_group, live_group_members, wait_group_gone,
};

use std::collections::VecDeque;
use std::path::Path;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

use crate::sandbox::Confinement;

/// Why a server could not be started. Closed: the pool converts every variant into its own
/// error by an exhaustive `match`, so a new one must be handled there.
#[derive(Debug, thiserror::Error)]
pub enum ProcessError {
    /// The Landlock ruleset could not be built (`reason` names what failed); the program is not
    /// started unconfined.
    #[error("its sandbox could not be set up ({reason})")]
    Sandbox { reason: String },
    /// The fork or the exec failed.
    #[error("{}: {source}", program.display())]
    Spawn {
        program: std::path::PathBuf,
        source: std::io::Error,
    },
    /// The child was started without the stdio pipes asked for.
    #[error("stdio pipes missing")]
    PipesMissing,
}

/// Last lines a server wrote on stderr, bounded in lines and bytes.
#[derive(Debug, Default)]
pub struct StderrTail {
    lines: VecDeque<String>,
    bytes: usize,
}

const STDERR_MAX_LINES: usize = 200;
const STDERR_MAX_BYTES: usize = 64 * 1024;
const STDERR_MAX_LINE: usize = 2048;

impl StderrTail {
    fn push(&mut self, mut line: String) {
        if line.len() > STDERR_MAX_LINE {
            let mut cut = STDERR_MAX_LINE;
            while !line.is_char_boundary(cut) {
                cut -= 1;
            }
            line.truncate(cut);
        }
        self.bytes += line.len();
        self.lines.push_back(line);
        while self.lines.len() > STDERR_MAX_LINES || self.bytes > STDERR_MAX_BYTES {
            match self.lines.pop_front() {
                Some(old) => self.bytes -= old.len(),
                None => break,
            }
        }
    }

    /// The last `n` lines joined with ` | `.
    pub fn last(&self, n: usize) -> String {
        let skip = self.lines.len().saturating_sub(n);
        self.lines
            .iter()
            .skip(skip)
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join(" | ")
    }
}

/// Kills a process group with SIGKILL when dropped, unless disarmed. The backstop that makes
/// "no orphans" hold even when a future is dropped mid-shutdown or the pool is dropped without
/// `shutdown()`.
///
/// The group is signalled once: after SIGKILL every member is gone, and signalling the same
/// number later could hit an unrelated group that reused it.
#[derive(Debug)]
pub struct GroupGuard {
    pgid: u32,
    killed: AtomicBool,
    groups: Arc<Groups>,
}

impl GroupGuard {
    pub fn pgid(&self) -> u32 {
        self.pgid
    }

    pub fn kill(&self) {
        if !self.killed.swap(true, Ordering::SeqCst) {
            kill_group(self.pgid);
            self.groups.remove(self.pgid);
        }
    }
}

/// Every process group a pool spawned and has not killed yet, from the moment of the spawn.
///
/// The backstop for groups whose [`GroupGuard`] is held by a future that may never be dropped:
/// a server still in `initialize` when its owner exits lives in a start task, and a runtime shut
/// down in the background does not drop its tasks before the process ends. The pool kills
/// what is listed here on shutdown and on drop, so no server outlives its owner.
#[derive(Debug, Default)]
pub struct Groups {
    live: Mutex<std::collections::BTreeSet<u32>>,
}

impl Groups {
    fn add(&self, pgid: u32) {
        self.live
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(pgid);
        #[cfg(unix)]
        watchdog::tell('+', pgid);
    }

    fn remove(&self, pgid: u32) {
        self.live
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&pgid);
        #[cfg(unix)]
        watchdog::tell('-', pgid);
    }

    /// The groups spawned and not yet killed.
    pub fn list(&self) -> Vec<u32> {
        self.live
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .copied()
            .collect()
    }

    /// SIGKILLs every listed group; returns the groups signalled.
    pub fn kill_all(&self) -> Vec<u32> {
        let groups: Vec<u32> =
            std::mem::take(&mut *self.live.lock().unwrap_or_else(|e| e.into_inner()))
                .into_iter()
                .collect();
        for &pgid in &groups {
            kill_group(pgid);
            #[cfg(unix)]
            watchdog::tell('-', pgid);
        }
        groups
    }
}

/// What kills the servers' whole process groups when lspedit dies without killing them itself
/// (SIGKILL, a crash). `PR_SET_PDEATHSIG` ends each server's first process, but the kernel
/// clears it in the processes a server starts (tsserver, cargo, rustc, a wedged child), which
/// would live on. The watchdog is one `/bin/sh` per lspedit process, in a process group of its
/// own, reading `+pgid` / `-pgid` lines on a pipe whose only write end lspedit holds (close on
/// exec, so no server inherits it): when lspedit dies the pipe ends, and it kills every group
/// still listed and every group of their sessions (each server is a session of its own, see
/// `confine_at_exec`: `/proc/<pid>/stat` after the command name reads state, ppid, group,
/// session), then exits. Groups are listed from their spawn and taken off when lspedit
/// kills them, so a group number reused after that is never signalled.
///
/// Unix only: on Windows each group is a kill-on-close job whose only handle lspedit holds
/// (`os_windows.rs`), which Windows closes, killing the job, when lspedit dies.
#[cfg(unix)]
mod watchdog {
    use std::io::Write;
    use std::os::unix::process::CommandExt;
    use std::process::{ChildStdin, Command, Stdio};
    use std::sync::{Mutex, OnceLock};

    const SCRIPT: &str = r#"groups=' '
while IFS= read -r line; do
  case $line in
    +*) groups="$groups${line#+} " ;;
    -*) g=${line#-}
        case $groups in *" $g "*) groups="${groups%% $g *} ${groups#* $g }" ;; esac ;;
  esac
done
for g in $groups; do kill -s KILL -- "-$g" 2>/dev/null; done
for f in /proc/[0-9]*/stat; do
  read -r stat < "$f" 2>/dev/null || continue
  set -- ${stat##*) }
  case $groups in *" $4 "*) kill -s KILL -- "-$3" 2>/dev/null ;; esac
done
"#;

    #[allow(clippy::zombie_processes)] // It must outlive this process; see the module docs.
    fn pipe() -> &'static Mutex<Option<ChildStdin>> {
        static PIPE: OnceLock<Mutex<Option<ChildStdin>>> = OnceLock::new();
        PIPE.get_or_init(|| {
            let child = Command::new("/bin/sh")
                .args(["-c", SCRIPT])
                .env_clear()
                .current_dir("/")
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .process_group(0)
                .spawn();
            match child {
                // Not waited for: it outlives this process by design, and exits on its own when
                // the pipe ends (the zombie, if this process lives on, is one entry).
                Ok(mut c) => Mutex::new(c.stdin.take()),
                Err(e) => {
                    tracing::warn!("no watchdog for server process groups: {e}");
                    Mutex::new(None)
                }
            }
        })
    }

    /// Tells the watchdog that group `pgid` was spawned (`+`) or killed (`-`).
    pub(super) fn tell(op: char, pgid: u32) {
        if pgid == 0 {
            return;
        }
        let mut pipe = pipe().lock().unwrap_or_else(|e| e.into_inner());
        if let Some(w) = pipe.as_mut()
            && writeln!(w, "{op}{pgid}").is_err()
        {
            *pipe = None;
        }
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A started server: its pipes, the guard that owns its process group, and the tail of its
/// stderr.
#[derive(Debug)]
pub struct Spawned {
    pub child: Child,
    pub stdin: ChildStdin,
    pub stdout: ChildStdout,
    pub guard: GroupGuard,
    pub stderr: Arc<Mutex<StderrTail>>,
}

/// What [`spawn`] starts: the program, its arguments, its whole environment (nothing else is
/// inherited) and, where the kernel has Landlock, its confinement.
#[derive(Debug, Clone, Copy)]
pub struct Program<'a> {
    pub path: &'a Path,
    pub args: &'a [String],
    pub env: &'a std::collections::BTreeMap<String, String>,
    /// `None` where the kernel has no Landlock.
    pub confinement: Option<&'a Confinement>,
}

/// Spawns `program` in `cwd` as the server `server` (the name its logs carry): a new process
/// group, piped stdio, only the program's environment, and between fork and exec
/// `PR_SET_PDEATHSIG` (SIGKILL when lspedit dies, even by SIGKILL) and the Landlock ruleset
/// ([`sandbox`]). Stderr is drained by a task into a bounded buffer and logged at debug level
/// under `server`.
///
/// The fork happens on one long-lived thread of the process (`on_spawner`): the parent-death
/// signal fires when the *thread* that forked exits, and a runtime's blocking threads come and
/// go.
pub fn spawn(
    server: &str,
    program: Program<'_>,
    cwd: &Path,
    groups: &Arc<Groups>,
) -> Result<Spawned, ProcessError> {
    let prepared = match program.confinement {
        Some(c) => Some(
            c.prepare()
                .map_err(|reason| ProcessError::Sandbox { reason })?,
        ),
        None => None,
    };
    tracing::debug!(server, env = ?program.env, confinement = ?program.confinement, "launching");
    let path = program.path.to_owned();
    let mut cmd = Command::new(&path);
    cmd.args(program.args)
        .env_clear()
        .envs(program.env)
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    #[cfg(unix)]
    confine_at_exec(&mut cmd, prepared);
    #[cfg(windows)]
    {
        // Nothing runs between fork and exec on Windows: there is no sandbox to apply (its
        // preparation fails on every kernel but Linux's, above), and the job made right after
        // the spawn is what kills the server with lspedit.
        if let Some(never) = prepared {
            match never {}
        }
        cmd.creation_flags(os_windows::CREATE_FLAGS);
    }
    let handle = tokio::runtime::Handle::current();
    let mut child = on_spawner(move || {
        let _rt = handle.enter();
        cmd.spawn()
    })
    .map_err(|source| ProcessError::Spawn {
        program: path.clone(),
        source,
    })?;
    // Created suspended: it runs only once it is in its job, so whatever it starts is too.
    #[cfg(windows)]
    {
        let adopted = match (child.id(), child.raw_handle()) {
            (Some(pid), Some(process)) => os_windows::adopt(pid, process),
            _ => Err(std::io::Error::other("the child has no process handle")),
        };
        if let Err(source) = adopted {
            let _ = child.start_kill();
            return Err(ProcessError::Spawn {
                program: path,
                source,
            });
        }
    }
    let pid = child.id().unwrap_or(0);
    // From here on the guard owns the group: any early return kills it. Listed at once, so an
    // owner that exits while the server starts still kills it (see [`Groups`]).
    if pid != 0 {
        groups.add(pid);
    }
    let guard = GroupGuard {
        pgid: pid,
        killed: AtomicBool::new(pid == 0),
        groups: Arc::clone(groups),
    };
    let (Some(stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err(ProcessError::PipesMissing);
    };
    let tail = Arc::new(Mutex::new(StderrTail::default()));
    let tail2 = tail.clone();
    let name = server.to_owned();
    tokio::spawn(async move {
        let mut reader = BufReader::new(stderr);
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match reader.read_until(b'\n', &mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    let line = String::from_utf8_lossy(&buf).trim_end().to_owned();
                    tracing::debug!(server = %name, "stderr: {line}");
                    if let Ok(mut t) = tail2.lock() {
                        t.push(line);
                    }
                }
            }
        }
    });
    tracing::debug!(server, pid, program = %path.display(), cwd = %cwd.display(),
        sandboxed = program.confinement.is_some(), "spawned");
    Ok(Spawned {
        child,
        stdin,
        stdout,
        guard,
        stderr: tail,
    })
}

/// Makes the child a session of its own (so a process group of its own, whose id is its pid)
/// and, between fork and exec, arms `PR_SET_PDEATHSIG` and applies the Landlock ruleset
/// `prepared` (built in the parent). The session, not only the group: a server that puts a
/// child in a group of its own (rust-analyzer's `cargo check`) keeps it in the session, where
/// [`kill_group`] and the group's memory still find it.
#[cfg(unix)]
fn confine_at_exec(cmd: &mut Command, prepared: Option<sandbox::Prepared>) {
    let parent = rustix::process::getpid();
    let mut prepared = prepared;
    // The one unsafe block of a spawn: `pre_exec` is how a child is confined before it runs
    // anything of its own.
    // SAFETY: runs in the child between fork and exec, where only async-signal-safe work is
    // allowed: setsid, prctl, getppid and the Landlock syscalls on a ruleset built in the
    // parent; no allocation.
    #[allow(unsafe_code)]
    unsafe {
        cmd.pre_exec(move || {
            rustix::process::setsid()?;
            rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL))?;
            // The parent may have died before the signal was armed.
            if rustix::process::getppid() != Some(parent) {
                return Err(std::io::Error::from(std::io::ErrorKind::BrokenPipe));
            }
            if let Some(p) = prepared.take() {
                crate::sandbox::restrict_self(p)?;
            }
            Ok(())
        });
    }
}

/// Runs `job` on the process's spawner thread, which never exits, and returns its result.
/// Used for every server fork, so each server's parent-death signal is tied to the process's
/// life, not to the life of whatever thread asked for the server.
fn on_spawner<T: Send + 'static>(
    job: impl FnOnce() -> std::io::Result<T> + Send + 'static,
) -> std::io::Result<T> {
    type Job = Box<dyn FnOnce() + Send>;
    static SPAWNER: std::sync::OnceLock<Mutex<std::sync::mpsc::Sender<Job>>> =
        std::sync::OnceLock::new();
    let sender = SPAWNER.get_or_init(|| {
        let (tx, rx) = std::sync::mpsc::channel::<Job>();
        // If the thread cannot be started, jobs fail below (their sender is dropped).
        let _ = std::thread::Builder::new()
            .name("lspedit-spawner".into())
            .spawn(move || {
                for job in rx {
                    job();
                }
            });
        Mutex::new(tx)
    });
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    let job: Job = Box::new(move || {
        let _ = tx.send(job());
    });
    sender
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .send(job)
        .map_err(|_| std::io::Error::other("the spawner thread is gone"))?;
    rx.recv()
        .unwrap_or_else(|_| Err(std::io::Error::other("the spawner thread is gone")))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A server is a session of its own: a child it puts in a process group of its own (as
    /// rust-analyzer starts `cargo check`) is one of its group's members, counted in its memory
    /// and killed with it.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_servers_child_in_a_group_of_its_own_goes_with_the_server() {
        use tokio::io::AsyncBufReadExt;
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let script =
                r#"perl -e '$| = 1; setpgrp(0, 0); print "$$\n"; exec("sleep", "600")' & wait"#;
            let args = ["-c".to_owned(), script.to_owned()];
            let env = [("PATH".to_owned(), "/usr/bin:/bin".to_owned())].into();
            let program = Program {
                path: Path::new("/bin/sh"),
                args: &args,
                env: &env,
                confinement: None,
            };
            let groups = Arc::new(Groups::default());
            let s = spawn("test", program, Path::new("/"), &groups).unwrap();
            let pgid = s.guard.pgid();
            let mut line = String::new();
            let mut out = tokio::io::BufReader::new(s.stdout);
            out.read_line(&mut line).await.unwrap();
            let child: u32 = line.trim().parse().unwrap();
            let stat = std::fs::read_to_string(format!("/proc/{child}/stat")).unwrap();
            let group = stat.rsplit(") ").next().unwrap().split(' ').nth(2).unwrap();
            assert_eq!(
                group,
                child.to_string(),
                "the child leads a group of its own"
            );
            assert!(live_group_members(pgid).contains(&child), "{stat}");
            assert!(group_rss_kib(pgid).unwrap() > group_rss_kib(child).unwrap());
            s.guard.kill();
            assert!(wait_group_gone(child, Duration::from_secs(30)));
            assert!(wait_group_gone(pgid, Duration::from_secs(30)));
        });
    }

    /// On the real kernel: a file in [`sandbox::Confinement::hidden`] cannot be read even though
    /// its directory is granted whole, and its sibling can; a secret created after the start
    /// beneath that directory cannot be read either.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_hidden_file_is_unreadable_beneath_a_granted_directory() {
        if !sandbox::support().is_available() {
            eprintln!("SKIPPED: this kernel has no Landlock");
            return;
        }
        let t = tempfile::tempdir().unwrap();
        let home = t.path().canonicalize().unwrap().join(".cargo");
        std::fs::create_dir_all(home.join("registry")).unwrap();
        std::fs::write(home.join("registry/index"), "index\n").unwrap();
        std::fs::write(home.join("credentials.toml"), "token = \"secret\"\n").unwrap();
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let script = r#"read -r go
cat "$1/registry/index"; echo "rc=$?"
cat "$1/credentials.toml"; echo "rc=$?"
cat "$1/credentials"; echo "rc=$?""#;
            let args = [
                "-c".to_owned(),
                script.to_owned(),
                "sh".to_owned(),
                home.display().to_string(),
            ];
            let env = [("PATH".to_owned(), "/usr/bin:/bin".to_owned())].into();
            let mut exec = sandbox::system_exec_dirs();
            exec.push(home.clone());
            let confinement = sandbox::Confinement {
                read: sandbox::system_read_paths(),
                exec,
                devices: sandbox::device_paths(),
                hidden: vec![home.join("credentials.toml"), home.join("credentials")],
                ..sandbox::Confinement::default()
            };
            let program = Program {
                path: Path::new("/bin/sh"),
                args: &args,
                env: &env,
                confinement: Some(&confinement),
            };
            let groups = Arc::new(Groups::default());
            let mut s = spawn("test", program, Path::new("/"), &groups).unwrap();
            // Written once the rules are made, as a secret created while a server runs.
            std::fs::write(home.join("credentials"), "late secret\n").unwrap();
            tokio::io::AsyncWriteExt::write_all(&mut s.stdin, b"go\n")
                .await
                .unwrap();
            let mut out = String::new();
            tokio::io::AsyncReadExt::read_to_string(&mut s.stdout, &mut out)
                .await
                .unwrap();
            let _ = s.child.wait().await;
            assert_eq!(out, "index\nrc=0\nrc=1\nrc=1\n", "{out}");
        });
    }

    #[test]
    fn stderr_tail_is_bounded() {
        let mut t = StderrTail::default();
        for i in 0..1000 {
            t.push(format!("line {i}"));
        }
        assert_eq!(t.lines.len(), STDERR_MAX_LINES);
        assert_eq!(t.last(2), "line 998 | line 999");
        t.push("x".repeat(10_000));
        assert!(t.bytes <= STDERR_MAX_BYTES);
        assert!(t.lines.back().is_some_and(|l| l.len() == STDERR_MAX_LINE));
    }
}

/// How a bounded run captures the child's output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Capture {
    /// stdout and stderr kept apart.
    Separate,
    /// stderr into the same pipe as stdout, in the order written (a command's log).
    Merged,
    /// stdout only; stderr discarded.
    StdoutOnly,
}

/// What a bounded run produced. Each stream keeps at most `max_bytes` (its last bytes).
#[derive(Debug)]
pub struct BoundedRun {
    /// `None` when the run was killed at its deadline (or its status could not be read).
    pub status: Option<std::process::ExitStatus>,
    pub timed_out: bool,
    /// stdout (with stderr for [`Capture::Merged`]).
    pub stdout: Vec<u8>,
    /// stderr for [`Capture::Separate`]; empty otherwise.
    pub stderr: Vec<u8>,
    pub elapsed: Duration,
}

impl BoundedRun {
    /// Exited on its own with status 0.
    pub fn success(&self) -> bool {
        !self.timed_out && self.status.is_some_and(|s| s.success())
    }
}

/// Makes `cmd`'s child a session of its own (see [`confine_at_exec`]).
#[cfg(unix)]
fn new_session(cmd: &mut std::process::Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: `setsid` is async-signal-safe and allocates nothing, as work between fork and exec
    // must be.
    #[allow(unsafe_code)]
    unsafe {
        cmd.pre_exec(|| Ok(rustix::process::setsid().map(drop)?));
    }
}

/// The one way lspedit runs a short-lived child (an installer step, a validation command, a
/// benchmarked tool): stdin closed, in a process group of its own, its output drained on
/// threads into bounded buffers, the whole group killed at `timeout`, and whatever it left
/// running in its session killed on return, so no run leaves an orphan. (Language servers are
/// long-lived and go through `spawn`'s async path with the same group rule.)
///
/// On Unix it makes `cmd` a session of its own (`setsid`, so also a process group); on Windows it sets
/// `cmd`'s creation flags to `CREATE_SUSPENDED`, replacing any set before, and puts the child
/// into a job before it runs (see the crate docs).
pub fn run_bounded(
    cmd: &mut std::process::Command,
    timeout: Duration,
    capture: Capture,
    max_bytes: usize,
) -> std::io::Result<BoundedRun> {
    use std::io::Read;
    #[cfg(windows)]
    use std::os::windows::{io::AsRawHandle, process::CommandExt};
    let start = Instant::now();
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut kept: VecDeque<u8> = VecDeque::new();
            let mut buf = [0u8; 8192];
            loop {
                match r.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        kept.extend(&buf[..n]);
                        let excess = kept.len().saturating_sub(max_bytes);
                        kept.drain(..excess);
                    }
                }
            }
            Vec::from(kept)
        })
    };
    cmd.stdin(Stdio::null());
    #[cfg(unix)]
    new_session(cmd);
    #[cfg(windows)]
    cmd.creation_flags(os_windows::CREATE_FLAGS);
    let (stdout, stderr, mut child) = match capture {
        Capture::Merged => {
            let (reader, writer) = std::io::pipe()?;
            let writer2 = writer.try_clone()?;
            let child = cmd.stdout(writer).stderr(writer2).spawn();
            // The command keeps copies of the write end: replace them, or the read never ends.
            cmd.stdout(Stdio::null()).stderr(Stdio::null());
            (Some(drain(Box::new(reader))), None, child?)
        }
        Capture::Separate | Capture::StdoutOnly => {
            let err = if capture == Capture::Separate {
                Stdio::piped()
            } else {
                Stdio::null()
            };
            let mut child = cmd.stdout(Stdio::piped()).stderr(err).spawn()?;
            let out = child
                .stdout
                .take()
                .map(|o| drain(Box::new(o) as Box<dyn Read + Send>));
            let err = child
                .stderr
                .take()
                .map(|e| drain(Box::new(e) as Box<dyn Read + Send>));
            (out, err, child)
        }
    };
    // Created suspended: it runs only once it is in its job (see `spawn`).
    #[cfg(windows)]
    if let Err(e) = os_windows::adopt(child.id(), child.as_raw_handle()) {
        let _ = child.kill();
        let _ = child.wait();
        return Err(e);
    }
    let pgid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    let waiter = std::thread::spawn(move || {
        let status = child.wait();
        let _ = tx.send(());
        status
    });
    // Until the waiter reaps the child, its pid (also the group id) cannot be reused.
    let timed_out = rx.recv_timeout(timeout).is_err();
    if timed_out {
        kill_group(pgid);
    }
    let status = waiter.join().ok().and_then(Result::ok);
    // Whatever it left running in its session goes too (no orphans; nothing holds the pipes).
    kill_group(pgid);
    let collect = |h: Option<std::thread::JoinHandle<Vec<u8>>>| {
        h.and_then(|h| h.join().ok()).unwrap_or_default()
    };
    Ok(BoundedRun {
        status: if timed_out { None } else { status },
        timed_out,
        stdout: collect(stdout),
        stderr: collect(stderr),
        elapsed: start.elapsed(),
    })
}

#[cfg(test)]
mod bounded_tests {
    use super::*;

    #[test]
    fn a_fast_child_is_reaped_and_a_hung_group_killed_at_the_deadline() {
        let mut cmd = std::process::Command::new("sh");
        cmd.args(["-c", "echo out; echo err >&2; exit 3"]);
        let r = run_bounded(&mut cmd, Duration::from_secs(30), Capture::Separate, 1024).unwrap();
        assert!(!r.timed_out && !r.success());
        assert_eq!(r.status.and_then(|s| s.code()), Some(3));
        assert_eq!(
            (r.stdout.as_slice(), r.stderr.as_slice()),
            (&b"out\n"[..], &b"err\n"[..])
        );

        // A child that leaves a grandchild holding the pipe and sleeps: both die at the deadline.
        let mut cmd = std::process::Command::new("sh");
        cmd.args(["-c", "sleep 600 & echo started; wait"]);
        let r = run_bounded(&mut cmd, Duration::from_millis(300), Capture::Merged, 1024).unwrap();
        assert!(r.timed_out && r.status.is_none());
        assert_eq!(r.stdout, b"started\n");
        assert!(r.elapsed < Duration::from_secs(60), "{:?}", r.elapsed);

        // A grandchild that moved to a process group of its own is still of the run's session:
        // killed on return like the rest.
        let mut cmd = std::process::Command::new("sh");
        cmd.args([
            "-c",
            r#"(perl -e '$| = 1; setpgrp(0, 0); print "$$\n"; open(STDOUT, ">", "/dev/null"); exec("sleep", "600")' &) | head -n 1"#,
        ]);
        let r = run_bounded(&mut cmd, Duration::from_secs(30), Capture::StdoutOnly, 64).unwrap();
        assert!(r.success(), "{r:?}");
        let grandchild: u32 = String::from_utf8_lossy(&r.stdout).trim().parse().unwrap();
        assert!(
            wait_group_gone(grandchild, Duration::from_secs(30)),
            "left running: {grandchild}"
        );

        // Output past the cap keeps its end.
        let mut cmd = std::process::Command::new("sh");
        cmd.args(["-c", "printf 'abcdefghij'"]);
        let r = run_bounded(&mut cmd, Duration::from_secs(30), Capture::StdoutOnly, 4).unwrap();
        assert_eq!(r.stdout, b"ghij");
    }
}
