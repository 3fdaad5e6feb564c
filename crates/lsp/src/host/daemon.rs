//! The host process: `lspedit servers host --root DIR`.

#[cfg(unix)]
use std::collections::HashMap;
use std::path::{Path, PathBuf};
#[cfg(unix)]
use std::sync::{Arc, Mutex};
use std::time::Duration;
#[cfg(unix)]
use std::time::{Instant, SystemTime};

#[cfg(unix)]
use lspedit_process::Groups;
use lspedit_servers::PoolConfig;
#[cfg(unix)]
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
#[cfg(unix)]
use tokio::net::{UnixListener, UnixStream};
#[cfg(unix)]
use tokio::sync::{mpsc, watch};

use super::HostError;
#[cfg(unix)]
use super::mux::{Instance, body};
#[cfg(unix)]
use super::{
    Attached, HANDSHAKE_TIMEOUT, Hello, HostStatus, HostedServer, MAX_LINE, PROTOCOL, Reply,
    Request, Token, canonical_root, endpoint, launch_fingerprint, token,
};
#[cfg(unix)]
use crate::transport::sanitize;

/// How often the host looks for idle servers and for its workspace being gone.
#[cfg(unix)]
const MAINTENANCE: Duration = Duration::from_secs(5);

/// How the host runs.
#[derive(Debug, Clone)]
pub struct HostOptions {
    pub root: PathBuf,
    /// A server no client used for this long stops; the host exits once it has had no server
    /// and no client for this long.
    pub idle: Duration,
    /// See [`lspedit_servers::HostConfig::runtime_dir`].
    pub runtime_dir: Option<PathBuf>,
    /// The configuration servers are launched from (`None`: the workspace's, loaded afresh
    /// for every server started, as `PoolConfig::load` gives it). An embedder that builds
    /// its pool's configuration in code hosts it in-process with the same one.
    pub config: Option<PoolConfig>,
}

#[cfg(unix)]
struct Host {
    root: PathBuf,
    /// The runtime directory, whose token file must keep holding `token`.
    dir: PathBuf,
    /// What every hello must carry.
    token: Token,
    idle: Duration,
    config: Option<PoolConfig>,
    started: Instant,
    groups: Arc<Groups>,
    instances: Mutex<HashMap<(String, PathBuf), Arc<Instance>>>,
    /// Handshakes and attached clients in progress.
    connections: Mutex<usize>,
    last_activity: Mutex<Instant>,
    stop: watch::Sender<bool>,
}

/// Runs the host of `options.root` until it is stopped, idle, or its workspace is gone.
/// `ready` is called once it listens (the CLI prints the line its starter waits for).
#[cfg(unix)]
pub fn serve(options: &HostOptions, ready: impl FnOnce(&Path)) -> Result<(), HostError> {
    use std::os::unix::fs::MetadataExt;
    let root = canonical_root(&options.root);
    let end = endpoint(options.runtime_dir.as_deref(), &root)?;
    let socket = end.socket;
    if std::os::unix::net::UnixStream::connect(&socket).is_ok() {
        return Err(HostError::Start(format!(
            "a host for {} is already listening",
            root.display()
        )));
    }
    // A socket left by a host that died: its starter holds the lock, so no live host owns it.
    let _ = std::fs::remove_file(&socket);
    let listener = std::os::unix::net::UnixListener::bind(&socket)?;
    // What this host's socket file is: at exit it removes that one only, not a newer host's
    // bound at the same path meanwhile (after a stop, or once this one found its workspace gone).
    let bound = std::fs::symlink_metadata(&socket).map(|m| (m.dev(), m.ino()))?;
    listener.set_nonblocking(true)?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("lspedit-host")
        .enable_all()
        .build()?;
    let (stop, _) = watch::channel(false);
    let host = Arc::new(Host {
        root,
        dir: end.dir,
        token: end.token,
        idle: options.idle,
        config: options.config.clone(),
        started: Instant::now(),
        groups: Arc::new(Groups::default()),
        instances: Mutex::new(HashMap::new()),
        connections: Mutex::new(0),
        last_activity: Mutex::new(Instant::now()),
        stop,
    });
    ready(&socket);
    let result = rt.block_on(async {
        let listener = UnixListener::from_std(listener)?;
        run(&host, listener).await;
        Ok::<(), HostError>(())
    });
    // Only this host's socket: a newer host may have replaced it after a stop.
    if std::fs::symlink_metadata(&socket).is_ok_and(|m| (m.dev(), m.ino()) == bound) {
        let _ = std::fs::remove_file(&socket);
    }
    host.groups.kill_all();
    rt.shutdown_timeout(Duration::from_secs(2));
    result
}

/// Always [`HostError::Unsupported`]: the host listens on a Unix socket, which this platform
/// lacks.
#[cfg(not(unix))]
pub fn serve(_options: &HostOptions, _ready: impl FnOnce(&Path)) -> Result<(), HostError> {
    Err(HostError::Unsupported)
}

#[cfg(unix)]
async fn run(host: &Arc<Host>, listener: UnixListener) {
    let mut stop = host.stop.subscribe();
    let mut tick = tokio::time::interval(MAINTENANCE);
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                if let Ok((stream, _)) = accepted {
                    let host = Arc::clone(host);
                    tokio::spawn(async move { host.connection(stream).await });
                }
            }
            _ = tick.tick() => {
                if host.maintain().await {
                    break;
                }
            }
            _ = stop.wait_for(|s| *s) => break,
        }
    }
    host.stop_all().await;
}

#[cfg(unix)]
impl Host {
    fn lock_instances(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<(String, PathBuf), Arc<Instance>>> {
        self.instances.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn touch(&self) {
        *self.last_activity.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
    }

    /// Stops `instance`, whose directories are not the ones it started in: its clients are
    /// detached (their pools start the server again, through this host, for the new tree).
    async fn retire(&self, instance: &Arc<Instance>) {
        {
            let mut map = self.lock_instances();
            let key = (instance.server.clone(), instance.root.clone());
            if map.get(&key).is_some_and(|i| Arc::ptr_eq(i, instance)) {
                map.remove(&key);
            }
        }
        tracing::debug!(server = %instance.server, root = %instance.root.display(), "its directory was re-created; stopped");
        instance.shutdown(Duration::from_millis(1500)).await;
    }

    /// Stops servers idle past the idle time and those whose directories were re-created;
    /// true when the host should exit (idle itself, its workspace gone, or its token file
    /// gone or replaced: no client could reach it).
    async fn maintain(&self) -> bool {
        if !self.root.is_dir() {
            tracing::debug!(root = %self.root.display(), "workspace gone; host exits");
            return true;
        }
        if !token::still(&self.dir, &self.token) {
            tracing::debug!(dir = %self.dir.display(), "token file gone or replaced; host exits");
            return true;
        }
        let done: Vec<Arc<Instance>> = {
            let mut map = self.lock_instances();
            map.retain(|_, i| !i.is_dead());
            let keys: Vec<_> = map
                .iter()
                .filter(|(_, i)| {
                    let (now, _, since) = i.clients();
                    let idle = now == 0 && since.is_some_and(|s| s.elapsed() >= self.idle);
                    idle || !i.tree.unchanged()
                })
                .map(|(k, _)| k.clone())
                .collect();
            keys.iter().filter_map(|k| map.remove(k)).collect()
        };
        for instance in done {
            instance.shutdown(Duration::from_millis(1500)).await;
            self.touch();
        }
        let connections = *self.connections.lock().unwrap_or_else(|e| e.into_inner());
        let last = *self.last_activity.lock().unwrap_or_else(|e| e.into_inner());
        self.lock_instances().is_empty() && connections == 0 && last.elapsed() >= self.idle
    }

    async fn stop_all(&self) {
        let all: Vec<Arc<Instance>> = self.lock_instances().drain().map(|(_, i)| i).collect();
        futures::future::join_all(all.iter().map(|i| i.shutdown(Duration::from_millis(1500))))
            .await;
    }

    fn status(&self) -> HostStatus {
        let mut servers: Vec<HostedServer> = self
            .lock_instances()
            .values()
            .filter(|i| !i.is_dead())
            .map(|i| {
                let (clients, served, _) = i.clients();
                HostedServer {
                    server: i.server.clone(),
                    root: i.root.clone(),
                    pgid: i.pgid(),
                    clients,
                    served,
                    uptime_ms: i.started.elapsed().as_millis() as u64,
                    rss_kib: lspedit_process::group_rss_kib(i.pgid()),
                }
            })
            .collect();
        servers.sort_by(|a, b| (&a.server, &a.root).cmp(&(&b.server, &b.root)));
        HostStatus {
            pid: std::process::id(),
            root: self.root.clone(),
            uptime_ms: self.started.elapsed().as_millis() as u64,
            idle_secs: self.idle.as_secs(),
            servers,
        }
    }

    async fn connection(self: Arc<Self>, stream: UnixStream) {
        let mine = rustix::process::getuid().as_raw();
        if !stream.peer_cred().is_ok_and(|c| c.uid() == mine) {
            return;
        }
        *self.connections.lock().unwrap_or_else(|e| e.into_inner()) += 1;
        self.touch();
        self.attach(stream).await;
        *self.connections.lock().unwrap_or_else(|e| e.into_inner()) -= 1;
        self.touch();
    }

    async fn attach(&self, stream: UnixStream) {
        let (read, mut write) = stream.into_split();
        let mut read = BufReader::new(read);
        let mut line = Vec::new();
        let got = tokio::time::timeout(
            HANDSHAKE_TIMEOUT,
            (&mut read)
                .take(MAX_LINE as u64)
                .read_until(b'\n', &mut line),
        )
        .await;
        if !matches!(got, Ok(Ok(n)) if n > 0) {
            return;
        }
        let reply_line = |reply: &Reply| {
            let mut l = serde_json::to_vec(reply).unwrap_or_default();
            l.push(b'\n');
            l
        };
        let refuse = |why: String| reply_line(&Reply::Refused(why));
        // The version first: a hello of another version has another shape.
        #[derive(serde::Deserialize)]
        struct Version {
            v: Option<u32>,
        }
        match serde_json::from_slice::<Version>(&line) {
            Ok(Version { v: Some(PROTOCOL) }) => {}
            Ok(Version { v }) => {
                let v = v.map_or_else(|| "none".to_owned(), |v| v.to_string());
                let why = format!("protocol {v}, host speaks {PROTOCOL}");
                let _ = write.write_all(&refuse(why)).await;
                return;
            }
            Err(e) => {
                let _ = write.write_all(&refuse(format!("not a hello: {e}"))).await;
                return;
            }
        }
        let hello: Hello = match serde_json::from_slice(&line) {
            Ok(h) => h,
            Err(e) => {
                let _ = write.write_all(&refuse(format!("not a hello: {e}"))).await;
                return;
            }
        };
        // Nothing is answered, started or stopped for a hello without this host's token.
        if !hello.token.matches(&self.token) {
            tracing::debug!("refused a hello without this host's token");
            let why = "not this host's token: it answers only lspedit processes of its user that can read its token file".to_owned();
            let _ = write.write_all(&refuse(why)).await;
            return;
        }
        let (instance, session) = match hello.op {
            Request::Status => {
                let _ = write
                    .write_all(&reply_line(&Reply::Status(self.status())))
                    .await;
                return;
            }
            Request::Stop => {
                let status = self.status();
                self.stop_all().await;
                let _ = write.write_all(&reply_line(&Reply::Stopped(status))).await;
                self.stop.send_replace(true);
                return;
            }
            Request::Connect {
                server,
                root,
                launch,
                session,
            } => match self.instance(&server, &root, &launch) {
                Ok(i) => (i, session),
                Err(why) => {
                    let _ = write.write_all(&refuse(why)).await;
                    return;
                }
            },
        };
        if !instance.admits(&session) {
            let why = format!(
                "{} runs here for clients that initialize it differently (another lspedit version?)",
                instance.server
            );
            let _ = write.write_all(&refuse(why)).await;
            return;
        }
        let (out, mut outbox) = mpsc::unbounded_channel::<Vec<u8>>();
        let (client, served) = instance.join(out);
        let attached = Reply::Attached(Attached {
            pgid: instance.pgid(),
            served,
        });
        if write.write_all(&reply_line(&attached)).await.is_err() {
            instance.leave(client);
            return;
        }
        tokio::spawn(async move {
            while let Some(f) = outbox.recv().await {
                if write.write_all(&f).await.is_err() {
                    break;
                }
            }
            let _ = write.shutdown().await;
        });
        let (frames_tx, mut frames) = mpsc::channel(256);
        let name = format!("{} client", instance.server);
        let reader = tokio::spawn(async move { sanitize(&name, read, frames_tx).await });
        while let Some(frame) = frames.recv().await {
            if let Some(msg) = body(&frame) {
                // A message (a request, or a text whose publish would be the answer) while the
                // server's directory is not the one it started in (removed and created again):
                // nothing of the old tree is answered; the client's connection closes and its
                // pool starts the server again, for the new one.
                if !instance.tree.unchanged() {
                    self.retire(&instance).await;
                    break;
                }
                instance.on_client(client, msg);
            }
        }
        reader.abort();
        instance.leave(client);
    }

    /// The running server `server` for `root`, started when there is none; refused unless the
    /// host's own launch of it has the client's fingerprint.
    fn instance(&self, server: &str, root: &Path, launch: &str) -> Result<Arc<Instance>, String> {
        let root = canonical_root(root);
        if !root.starts_with(&self.root) {
            return Err(format!(
                "{} is outside this host's workspace {}",
                root.display(),
                self.root.display()
            ));
        }
        let key = (server.to_owned(), root.clone());
        // Taken before any server starts: a tree replaced while it starts is caught at the
        // client's next message.
        let tree = Tree::of(&[&self.root, &root]);
        let mut map = self.lock_instances();
        // A server whose directory was removed (and maybe created again at the same path)
        // answers about a tree that is gone: it stops, and a fresh one starts.
        if let Some(old) = map.get(&key).filter(|i| tree.as_ref() != Some(&i.tree)) {
            let old = Arc::clone(old);
            map.remove(&key);
            tracing::debug!(%server, root = %root.display(), "its directory was re-created; restarting");
            tokio::spawn(async move { old.shutdown(Duration::from_millis(1500)).await });
        }
        let Some(tree) = tree else {
            return Err(format!("{} is gone", root.display()));
        };
        if let Some(i) = map.get(&key).filter(|i| !i.is_dead()) {
            if i.launch != launch {
                return Err(format!(
                    "{server} runs here with another launch (configuration or environment); stop the host to change it"
                ));
            }
            return Ok(Arc::clone(i));
        }
        let config = match &self.config {
            Some(c) => c.clone(),
            None => PoolConfig::load(&self.root).map_err(|e| e.to_string())?,
        };
        let cfg = config
            .servers
            .iter()
            .find(|s| s.id == server)
            .ok_or_else(|| format!("no server {server} in this host's configuration"))?;
        let cfg = Arc::new(cfg.clone());
        let program = config
            .resolve_command(&cfg)
            .ok_or_else(|| format!("{server}: command {} not found", cfg.command))?;
        let prepared = lspedit_servers::launch::prepare(&config, &cfg, &self.root, &root, program)
            .map_err(|e| e.to_string())?;
        if launch_fingerprint(&prepared) != launch {
            return Err(format!(
                "this host's launch of {server} differs from the client's (another configuration or environment)"
            ));
        }
        let instance = Instance::start(
            &prepared,
            launch.to_owned(),
            root,
            tree,
            &self.groups,
            config.watch_debounce,
        )
        .map_err(|e| format!("{server}: {e}"))?;
        map.insert(key, Arc::clone(&instance));
        Ok(instance)
    }
}

/// What a server's directories (the workspace root and its own root, canonical) were when it
/// started: device, inode and birth time of each. A directory removed and created again at the
/// same path (`rm -rf ws`, a new clone) is another one, even when the file system hands out
/// the same inode number again (the birth time differs, where the file system keeps one).
#[cfg(unix)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Tree(Vec<(PathBuf, DirId)>);

#[cfg(unix)]
#[derive(Debug, Clone, PartialEq, Eq)]
struct DirId {
    dev: u64,
    ino: u64,
    born: Option<SystemTime>,
}

#[cfg(unix)]
impl Tree {
    /// The directories `dirs` as they are now; `None` when one is gone or not a directory.
    pub(super) fn of(dirs: &[&Path]) -> Option<Tree> {
        use std::os::unix::fs::MetadataExt;
        let ids = dirs.iter().map(|d| {
            let m = std::fs::metadata(d)
                .ok()
                .filter(std::fs::Metadata::is_dir)?;
            let id = DirId {
                dev: m.dev(),
                ino: m.ino(),
                born: m.created().ok(),
            };
            Some((d.to_path_buf(), id))
        });
        ids.collect::<Option<Vec<_>>>().map(Tree)
    }

    /// Whether every directory is still the one it was.
    pub(super) fn unchanged(&self) -> bool {
        let dirs: Vec<&Path> = self.0.iter().map(|(p, _)| p.as_path()).collect();
        Tree::of(&dirs).as_ref() == Some(self)
    }
}
