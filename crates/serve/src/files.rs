//! The service's files under the state directory: `serve.lock` (held while
//! the service runs), `serve.sock` (the hook socket, mode 0600) and
//! `serve.json` (where the page is; mode 0600, written atomically).

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use fs2::FileExt;
use serde::{Deserialize, Serialize};

use crate::ServeError;

pub const SOCKET_FILE: &str = "serve.sock";
pub const INFO_FILE: &str = "serve.json";
pub const LOCK_FILE: &str = "serve.lock";

/// The contents of `state/serve.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServeInfo {
    pub version: u32,
    /// `127.0.0.1:PORT`
    pub address: String,
    /// `http://127.0.0.1:PORT/` (log in with a token from the socket's `login`).
    pub url: String,
    pub pid: u32,
    /// Absolute path of the hook socket.
    pub socket: String,
    /// Unix milliseconds.
    pub started_ms: u64,
}

/// Read `serve.json` of a state directory (`None` when absent or unreadable).
pub fn read_info(state_dir: &Path) -> Option<ServeInfo> {
    let text = fs::read_to_string(state_dir.join(INFO_FILE)).ok()?;
    serde_json::from_str(&text).ok()
}

fn io_err(what: &str, path: &Path) -> impl FnOnce(io::Error) -> ServeError {
    let what = what.to_string();
    let path = path.to_path_buf();
    move |source| ServeError::Io { what, path, source }
}

/// Create the state directory (0700) if needed.
pub(crate) fn ensure_dir(dir: &Path) -> Result<(), ServeError> {
    if dir.is_dir() {
        return Ok(());
    }
    let mut b = fs::DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        b.mode(0o700);
    }
    b.create(dir)
        .map_err(io_err("create the state directory", dir))
}

fn open_private(path: &Path, create_new: bool) -> io::Result<File> {
    let mut o = OpenOptions::new();
    o.write(true).read(true);
    if create_new {
        o.create_new(true);
    } else {
        o.create(true);
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(0o600)
            .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32);
    }
    o.open(path)
}

/// Take `serve.lock`; refuse when another service holds it.
pub(crate) fn take_lock(state_dir: &Path) -> Result<File, ServeError> {
    let path = state_dir.join(LOCK_FILE);
    let f = open_private(&path, false).map_err(io_err("open", &path))?;
    if f.try_lock_exclusive().is_err() {
        return Err(ServeError::AlreadyRunning {
            detail: running_detail(state_dir),
        });
    }
    Ok(f)
}

fn running_detail(state_dir: &Path) -> String {
    match read_info(state_dir) {
        Some(i) => format!("pid {}, {}", i.pid, i.url),
        None => format!("it holds {}", state_dir.join(LOCK_FILE).display()),
    }
}

/// Write `serve.json` atomically (temporary file, fsync, rename), mode 0600.
pub(crate) fn write_info(state_dir: &Path, info: &ServeInfo) -> Result<(), ServeError> {
    let path = state_dir.join(INFO_FILE);
    let tmp = state_dir.join(format!(".{INFO_FILE}.{}.tmp", std::process::id()));
    let _ = fs::remove_file(&tmp);
    let text = serde_json::to_string_pretty(info).unwrap_or_default() + "\n";
    let write = || -> io::Result<()> {
        let mut f = open_private(&tmp, true)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        fs::rename(&tmp, &path)?;
        if let Ok(d) = File::open(state_dir) {
            let _ = d.sync_all();
        }
        Ok(())
    };
    write().map_err(|e| {
        let _ = fs::remove_file(&tmp);
        io_err("write", &path)(e)
    })
}

/// Remove `serve.json` if it still names this process.
pub(crate) fn remove_info(state_dir: &Path) {
    if read_info(state_dir).is_some_and(|i| i.pid == std::process::id()) {
        let _ = fs::remove_file(state_dir.join(INFO_FILE));
    }
}

/// Longest path a `sockaddr_un` holds (108 bytes with the final NUL).
#[cfg(unix)]
const SUN_PATH_MAX: usize = 107;

/// Run `f` on a path to `path` that fits a `sockaddr_un`: `path` itself
/// when short enough, else (Linux) `/proc/self/fd/<dir>/<name>` through an
/// open descriptor of its directory — a deep `$SHELLGATE_HOME` must not
/// break the service, nor make a live socket look stale.
#[cfg(unix)]
fn with_socket_path<T>(path: &Path, f: impl FnOnce(&Path) -> io::Result<T>) -> io::Result<T> {
    if path.as_os_str().len() <= SUN_PATH_MAX || !cfg!(target_os = "linux") {
        return f(path);
    }
    use std::os::fd::AsRawFd;
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return f(path);
    };
    let d = File::open(dir)?;
    let short = PathBuf::from(format!("/proc/self/fd/{}", d.as_raw_fd())).join(name);
    let r = f(&short);
    drop(d);
    r
}

/// Connect to the Unix socket at `path`, however long the path is.
#[cfg(unix)]
pub fn connect_unix(path: &Path) -> io::Result<std::os::unix::net::UnixStream> {
    with_socket_path(path, |p| std::os::unix::net::UnixStream::connect(p))
}

/// Bind a Unix socket at `path`, however long the path is.
#[cfg(unix)]
fn bind_unix(path: &Path) -> io::Result<std::os::unix::net::UnixListener> {
    with_socket_path(path, |p| std::os::unix::net::UnixListener::bind(p))
}

/// Bind the hook socket at `state_dir/serve.sock` with mode 0600 from the
/// start: it is bound inside a fresh private (0700) directory, chmod-ed, then
/// renamed into place. An existing `serve.sock` is removed only when it is a
/// socket nobody answers on; a live one, or something that is not a socket,
/// is refused.
#[cfg(unix)]
pub(crate) fn bind_socket(
    state_dir: &Path,
) -> Result<(std::os::unix::net::UnixListener, PathBuf), ServeError> {
    use std::os::unix::fs::{FileTypeExt, PermissionsExt};
    use std::os::unix::net::UnixListener;

    let path = state_dir.join(SOCKET_FILE);
    match fs::symlink_metadata(&path) {
        Ok(m) if m.file_type().is_socket() => {
            if connect_unix(&path).is_ok() {
                return Err(ServeError::AlreadyRunning {
                    detail: format!("something answers on {}", path.display()),
                });
            }
            fs::remove_file(&path).map_err(io_err("remove the stale socket", &path))?;
        }
        Ok(_) => {
            return Err(ServeError::NotASocket(path));
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(io_err("inspect", &path)(e)),
    }
    let nonce = crate::hub::random_id().map_err(|_| ServeError::Random)?;
    let private = state_dir.join(format!(".serve-{}", &nonce[..12]));
    let mut b = fs::DirBuilder::new();
    {
        use std::os::unix::fs::DirBuilderExt;
        b.mode(0o700);
    }
    b.create(&private)
        .map_err(io_err("create a private directory", &private))?;
    let tmp = private.join("s");
    let result = (|| {
        let l: UnixListener = bind_unix(&tmp).map_err(io_err("bind", &tmp))?;
        fs::set_permissions(&tmp, fs::Permissions::from_mode(0o600))
            .map_err(io_err("chmod", &tmp))?;
        fs::rename(&tmp, &path).map_err(io_err("rename the socket to", &path))?;
        Ok(l)
    })();
    let _ = fs::remove_file(&tmp);
    let _ = fs::remove_dir(&private);
    Ok((result?, path))
}

/// Remove the socket file if it is still the one this service bound.
#[cfg(unix)]
pub(crate) fn remove_socket(path: &Path, ino: Option<u64>) {
    use std::os::unix::fs::MetadataExt;
    if let Ok(m) = fs::symlink_metadata(path) {
        if Some(m.ino()) == ino {
            let _ = fs::remove_file(path);
        }
    }
}
