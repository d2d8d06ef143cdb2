//! Carrying the scripted services' TCP connections across the sandbox's network
//! namespace: inside, a listener on the service's own `127.0.0.1` port hands each
//! connection to a unix socket in the run dir (a file, reachable from both sides); outside,
//! a [`Bridge`] accepts on that socket and connects to the service.

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use crate::E2eError;

/// The longest path a unix socket address holds on Linux (`sun_path`, less its NUL).
const SUN_PATH_MAX: usize = 107;

/// One stream end that can be split into a reader and a writer and half-closed.
pub(crate) trait Duplex: Read + Write + Send + Sized + 'static {
    fn split(&self) -> std::io::Result<Self>;
    fn close_write(&self);
}

impl Duplex for TcpStream {
    fn split(&self) -> std::io::Result<Self> {
        self.try_clone()
    }
    fn close_write(&self) {
        // The peer may be gone already; nothing is left to tell it.
        let _ = self.shutdown(Shutdown::Write);
    }
}

impl Duplex for UnixStream {
    fn split(&self) -> std::io::Result<Self> {
        self.try_clone()
    }
    fn close_write(&self) {
        let _ = self.shutdown(Shutdown::Write);
    }
}

/// Copies `a` to `b` and `b` to `a` until both directions end (each end is half-closed
/// when its source ends, so an HTTP response still flows after the request's end).
pub(crate) fn pipe<A: Duplex, B: Duplex>(a: A, b: B) -> std::io::Result<()> {
    let (a2, b2) = (a.split()?, b.split()?);
    let back = thread::spawn(move || copy_then_close(b2, a2));
    copy_then_close(a, b);
    // A panicked copier lost only its own connection.
    let _ = back.join();
    Ok(())
}

fn copy_then_close<R: Duplex, W: Duplex>(mut from: R, mut to: W) {
    let mut buf = [0_u8; 16 * 1024];
    loop {
        match from.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                if to.write_all(&buf[..n]).is_err() {
                    break;
                }
            }
        }
    }
    to.close_write();
}

/// Checks that `path` fits a unix socket address.
pub(crate) fn check_socket_path(path: &Path) -> Result<(), E2eError> {
    if path.as_os_str().len() > SUN_PATH_MAX {
        return Err(E2eError::Setup(format!(
            "the sandbox's socket path {} is longer than {SUN_PATH_MAX} bytes (set NOTESOUP_E2E_RUNS to a shorter folder)",
            path.display()
        )));
    }
    Ok(())
}

/// Outside the sandbox: accepts on a unix socket and connects each connection to a
/// service on this side's loopback. Stops (and removes the socket) on drop.
pub(crate) struct Bridge {
    socket: PathBuf,
    stop: Arc<AtomicBool>,
    acceptor: Option<JoinHandle<()>>,
}

impl Bridge {
    pub(crate) fn start(socket: &Path, service: SocketAddr) -> Result<Self, E2eError> {
        check_socket_path(socket)?;
        let what = || socket.display().to_string();
        let _ = std::fs::remove_file(socket);
        let listener = UnixListener::bind(socket).map_err(|e| E2eError::io(&what(), e))?;
        listener
            .set_nonblocking(true)
            .map_err(|e| E2eError::io(&what(), e))?;
        let stop = Arc::new(AtomicBool::new(false));
        let acceptor = {
            let stop = Arc::clone(&stop);
            thread::spawn(move || {
                while !stop.load(Ordering::SeqCst) {
                    match listener.accept() {
                        Ok((inner, _)) => {
                            thread::spawn(move || {
                                let _ = inner.set_nonblocking(false);
                                if let Ok(outer) = TcpStream::connect(service) {
                                    // A connection dropped mid-way is the client's business.
                                    let _ = pipe(inner, outer);
                                }
                            });
                        }
                        Err(_) => thread::sleep(Duration::from_millis(5)),
                    }
                }
            })
        };
        Ok(Self {
            socket: socket.to_owned(),
            stop,
            acceptor: Some(acceptor),
        })
    }
}

impl Drop for Bridge {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(handle) = self.acceptor.take() {
            let _ = handle.join();
        }
        let _ = std::fs::remove_file(&self.socket);
    }
}

/// Inside the sandbox: listens on `127.0.0.1:port` and hands every connection to the
/// unix socket `socket` (a [`Bridge`] outside). Runs for the life of the process.
pub(crate) fn relay(port: u16, socket: PathBuf) -> Result<(), E2eError> {
    let listener = TcpListener::bind(("127.0.0.1", port))
        .map_err(|e| E2eError::io(&format!("bind 127.0.0.1:{port} in the sandbox"), e))?;
    thread::spawn(move || {
        for tcp in listener.incoming() {
            let Ok(tcp) = tcp else { continue };
            let socket = socket.clone();
            thread::spawn(move || {
                if let Ok(unix) = UnixStream::connect(&socket) {
                    let _ = pipe(tcp, unix);
                }
            });
        }
    });
    Ok(())
}
