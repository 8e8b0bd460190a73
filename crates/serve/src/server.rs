//! Starting and stopping the service.

use std::io::Write;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use tokio::sync::oneshot;

use crate::files::{self, ServeInfo};
use crate::hub::{now_ms, Hub};
use crate::{Backend, ServeError};

/// How to run the service.
#[derive(Debug, Clone)]
pub struct ServeConfig {
    /// Loopback address; port 0 lets the system choose. Anything else is
    /// refused with [`ServeError::NotLoopback`].
    pub listen: SocketAddr,
    /// `$SHELLGATE_HOME/state`: `serve.json`, `serve.sock`, `serve.lock`.
    pub state_dir: PathBuf,
    /// Longest a hook may wait (its own deadline is capped by this).
    pub max_wait: Duration,
    /// Most requests pending at once; past it a publish is refused and the
    /// hook falls back.
    pub max_pending: usize,
    /// Stop on SIGINT/SIGTERM ([`serve`] sets it).
    pub handle_signals: bool,
}

impl ServeConfig {
    /// `127.0.0.1:0`, one hour max wait, 1000 pending, no signal handling.
    pub fn new(state_dir: impl Into<PathBuf>) -> ServeConfig {
        ServeConfig {
            listen: SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 0),
            state_dir: state_dir.into(),
            max_wait: Duration::from_secs(3600),
            max_pending: 1000,
            handle_signals: false,
        }
    }
}

/// Parse a `--listen` value: `127.0.0.1:PORT`, `[::1]:PORT` or
/// `localhost:PORT`. Any address that is not loopback (`0.0.0.0:0`,
/// `[::]:0`, a LAN address) is refused.
pub fn check_listen(s: &str) -> Result<SocketAddr, ServeError> {
    let t = s.trim();
    let addr: SocketAddr = match t.strip_prefix("localhost:") {
        Some(port) => {
            let port: u16 = port
                .parse()
                .map_err(|_| ServeError::BadAddress(s.to_string()))?;
            SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port)
        }
        None => t
            .parse()
            .map_err(|_| ServeError::BadAddress(s.to_string()))?,
    };
    if !addr.ip().is_loopback() {
        return Err(ServeError::NotLoopback(addr.to_string()));
    }
    Ok(addr)
}

/// A running service (see [`start`]). Dropping it stops the service.
pub struct ServerHandle {
    addr: SocketAddr,
    url: String,
    login_url: String,
    socket: PathBuf,
    hub: Arc<Hub>,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl ServerHandle {
    /// The bound address (`127.0.0.1:PORT`).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }
    /// `http://127.0.0.1:PORT/`
    pub fn url(&self) -> &str {
        &self.url
    }
    /// The one-time login link minted at start.
    pub fn login_url(&self) -> &str {
        &self.login_url
    }
    /// Mint another one-time login link (valid 10 minutes).
    pub fn new_login_url(&self) -> Result<String, ServeError> {
        let t = self.hub.mint_login().map_err(|_| ServeError::Random)?;
        Ok(format!("{}login?token={t}", self.url))
    }
    /// The hook socket.
    pub fn socket_path(&self) -> &Path {
        &self.socket
    }
    /// Stop: waiting hooks see their connection close, `serve.sock` and
    /// `serve.json` are removed, the lock is released.
    pub fn shutdown(mut self) {
        self.stop_now();
    }
    /// Block until the service stops (a signal, with `handle_signals`).
    pub fn wait(mut self) {
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
    fn stop_now(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for ServerHandle {
    fn drop(&mut self) {
        self.stop_now();
    }
}

/// How long a login link works (it also works only once). The link printed
/// at start expires too: a link left in a terminal's scrollback or a log
/// file is a full login for whoever reads it later (svcrt); another one
/// comes from the socket's `login` (`shellgate serve --login`).
pub const LOGIN_TTL: Duration = Duration::from_secs(600);

/// Run the service in the foreground: print the page's URL and a one-time
/// login link on stdout, serve until SIGINT/SIGTERM.
pub fn serve(mut config: ServeConfig, backend: Arc<dyn Backend>) -> Result<(), ServeError> {
    config.handle_signals = true;
    let h = start(config, backend)?;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "shellgate approval service on {}", h.url());
    let _ = writeln!(out, "Log in (one-time link): {}", h.login_url());
    let _ = writeln!(
        out,
        "The link works once, within {} minutes; `shellgate serve --login` prints another.",
        LOGIN_TTL.as_secs() / 60
    );
    let _ = writeln!(
        out,
        "Hooks connect to {}. Press Ctrl-C to stop.",
        h.socket_path().display()
    );
    let _ = out.flush();
    drop(out);
    h.wait();
    Ok(())
}

/// Start the service on a background thread with its own tokio runtime and
/// return once it listens (page and socket) and `serve.json` is written.
#[cfg(unix)]
pub fn start(config: ServeConfig, backend: Arc<dyn Backend>) -> Result<ServerHandle, ServeError> {
    use std::os::unix::fs::MetadataExt;

    if !config.listen.ip().is_loopback() {
        return Err(ServeError::NotLoopback(config.listen.to_string()));
    }
    files::ensure_dir(&config.state_dir)?;
    let state_dir = std::path::absolute(&config.state_dir).map_err(|source| ServeError::Io {
        what: "resolve".into(),
        path: config.state_dir.clone(),
        source,
    })?;
    let lock = files::take_lock(&state_dir)?;
    raise_fd_limit();
    let tcp = std::net::TcpListener::bind(config.listen).map_err(|source| ServeError::Listen {
        addr: config.listen.to_string(),
        source,
    })?;
    let addr = tcp.local_addr().map_err(|source| ServeError::Listen {
        addr: config.listen.to_string(),
        source,
    })?;
    let (unix, socket) = files::bind_socket(&state_dir)?;
    let ino = std::fs::symlink_metadata(&socket).ok().map(|m| m.ino());
    let cleanup_socket = |s: &Path| files::remove_socket(s, ino);
    let fail = |e: ServeError| {
        cleanup_socket(&socket);
        e
    };
    tcp.set_nonblocking(true)
        .and_then(|_| unix.set_nonblocking(true))
        .map_err(|source| {
            fail(ServeError::Listen {
                addr: addr.to_string(),
                source,
            })
        })?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("shellgate-serve")
        .enable_all()
        .build()
        .map_err(|e| fail(ServeError::Runtime(e)))?;
    let (tcp, unix, stop_signals) = {
        let _g = rt.enter();
        // Registered before `start` returns (and so before `serve` prints
        // the link a supervisor may answer with SIGTERM at once): a signal
        // that arrived before the runtime thread first ran killed the
        // process by its default action, leaving `serve.json` and the
        // socket behind (the flaky `a_killed_service_…` test).
        let stop_signals = config.handle_signals.then(StopSignals::register);
        let tcp = tokio::net::TcpListener::from_std(tcp);
        let unix = tokio::net::UnixListener::from_std(unix);
        match (tcp, unix) {
            (Ok(t), Ok(u)) => (t, u, stop_signals),
            (Err(source), _) | (_, Err(source)) => {
                return Err(fail(ServeError::Listen {
                    addr: addr.to_string(),
                    source,
                }))
            }
        }
    };
    let hub = Arc::new(Hub::new(backend, config.max_pending, config.max_wait));
    let url = format!("http://{addr}/");
    let token = hub.mint_login().map_err(|_| fail(ServeError::Random))?;
    let login_url = format!("{url}login?token={token}");
    let info = ServeInfo {
        version: 1,
        address: addr.to_string(),
        url: url.clone(),
        pid: std::process::id(),
        socket: socket.display().to_string(),
        started_ms: now_ms(),
    };
    files::write_info(&state_dir, &info).map_err(fail)?;

    let (stop_tx, stop_rx) = oneshot::channel::<()>();
    let app = crate::http::app(Arc::clone(&hub), addr);
    let hub2 = Arc::clone(&hub);
    let socket2 = socket.clone();
    let thread = std::thread::Builder::new()
        .name("shellgate-serve".into())
        .spawn(move || {
            let _lock = lock;
            rt.block_on(async {
                tokio::spawn(async move {
                    let _ = axum::serve(tcp, app).await;
                });
                tokio::spawn(crate::sock::accept_loop(
                    unix,
                    Arc::clone(&hub2),
                    url_of(addr),
                ));
                wait_stop(stop_rx, stop_signals).await;
            });
            // New hooks find no socket (and fall back); waiting ones see
            // their connection close when the runtime goes.
            files::remove_socket(&socket2, ino);
            files::remove_info(&state_dir);
            hub2.close();
            rt.shutdown_timeout(Duration::from_millis(500));
        })
        .map_err(ServeError::Runtime)?;
    Ok(ServerHandle {
        addr,
        url,
        login_url,
        socket,
        hub,
        stop: Some(stop_tx),
        thread: Some(thread),
    })
}

/// The service needs Unix sockets.
#[cfg(not(unix))]
pub fn start(_config: ServeConfig, _backend: Arc<dyn Backend>) -> Result<ServerHandle, ServeError> {
    Err(ServeError::Unsupported)
}

/// Each waiting hook and each open page holds a descriptor: lift the soft
/// limit (often 1024) towards the hard one.
#[cfg(unix)]
fn raise_fd_limit() {
    use rustix::process::{getrlimit, setrlimit, Resource, Rlimit};
    let lim = getrlimit(Resource::Nofile);
    let want = lim.maximum.unwrap_or(65_536).min(65_536);
    if lim.current.is_some_and(|c| c < want) {
        let _ = setrlimit(
            Resource::Nofile,
            Rlimit {
                current: Some(want),
                maximum: lim.maximum,
            },
        );
    }
}

fn url_of(addr: SocketAddr) -> String {
    format!("http://{addr}/")
}

/// SIGTERM and SIGINT, taken over from their default action (ending the
/// process) when registered; they stop the service.
#[cfg(unix)]
struct StopSignals {
    term: Option<tokio::signal::unix::Signal>,
    int: Option<tokio::signal::unix::Signal>,
}

#[cfg(unix)]
impl StopSignals {
    /// Inside the runtime's context.
    fn register() -> StopSignals {
        use tokio::signal::unix::{signal, SignalKind};
        StopSignals {
            term: signal(SignalKind::terminate()).ok(),
            int: signal(SignalKind::interrupt()).ok(),
        }
    }
}

#[cfg(unix)]
async fn recv_or_never(s: Option<&mut tokio::signal::unix::Signal>) {
    match s {
        Some(s) => {
            s.recv().await;
        }
        None => std::future::pending::<()>().await,
    }
}

#[cfg(unix)]
async fn wait_stop(stop: oneshot::Receiver<()>, signals: Option<StopSignals>) {
    let Some(mut signals) = signals else {
        let _ = stop.await;
        return;
    };
    tokio::select! {
        _ = stop => {}
        _ = recv_or_never(signals.term.as_mut()) => {}
        _ = recv_or_never(signals.int.as_mut()) => {}
    }
}
