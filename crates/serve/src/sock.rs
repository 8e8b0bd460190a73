//! The hook socket: one task per connection, protocol in [`crate::protocol`].
//!
//! Agents cannot answer their own requests: a hook names its host agent's
//! process (`PublishRequest::agent_pid`, kept when it really is an
//! ancestor of the publishing process), and `list`, `answer` and `login`
//! from that process or any of its descendants (the agent's commands) are
//! refused with `agent_answer` (Linux: the peer's pid from `SO_PEERCRED`,
//! its ancestry from `/proc`).

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{UnixListener, UnixStream};

use crate::hub::{Hub, WaiterMsg};
use crate::protocol::{ClientMsg, Envelope, ServerMsg, MAX_LINE, VERSION};

/// How long a new connection may take to send its request line.
const FIRST_LINE: Duration = Duration::from_secs(10);

/// Host agent processes that published requests.
type Agents = Arc<Mutex<HashSet<u32>>>;

pub(crate) async fn accept_loop(listener: UnixListener, hub: Arc<Hub>, url: String) {
    let agents: Agents = Arc::default();
    loop {
        match listener.accept().await {
            Ok((stream, _)) => {
                if !same_user(&stream) {
                    continue;
                }
                let hub = Arc::clone(&hub);
                let url = url.clone();
                let agents = Arc::clone(&agents);
                tokio::spawn(async move {
                    handle(stream, hub, url, agents).await;
                });
            }
            Err(_) => {
                // Out of descriptors or similar: back off instead of spinning.
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
}

/// The socket file is 0600 already; also check the peer's uid where the
/// kernel tells it.
fn same_user(stream: &UnixStream) -> bool {
    match stream.peer_cred() {
        Ok(c) => c.uid() == rustix::process::geteuid().as_raw(),
        Err(_) => true,
    }
}

/// Read one line of at most `MAX_LINE` bytes (`None`: EOF, error or too long).
async fn read_line<R: tokio::io::AsyncBufRead + Unpin>(r: &mut R) -> Option<String> {
    let mut buf = Vec::new();
    let mut limited = r.take(MAX_LINE as u64 + 1);
    let n = limited.read_until(b'\n', &mut buf).await.ok()?;
    if n == 0 || buf.len() > MAX_LINE || buf.last() != Some(&b'\n') {
        return None;
    }
    String::from_utf8(buf).ok()
}

/// Deepest process ancestry followed.
const MAX_ANCESTRY: usize = 64;

/// `pid` and its ancestors, nearest first (empty where `/proc` cannot tell).
fn ancestry(pid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    let mut cur = pid;
    while cur > 1 && out.len() < MAX_ANCESTRY && !out.contains(&cur) {
        out.push(cur);
        match parent_of(cur) {
            Some(p) => cur = p,
            None => break,
        }
    }
    out
}

/// The parent pid of `pid` from `/proc/<pid>/stat` (field 4, after the
/// command name, which may hold spaces and parentheses).
fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = &stat[stat.rfind(')')? + 1..];
    let mut fields = after.split_whitespace();
    let _state = fields.next()?;
    fields.next()?.parse().ok()
}

fn alive(pid: u32) -> bool {
    std::path::Path::new(&format!("/proc/{pid}")).exists()
}

/// The agent process the peer runs under, if any (dead agents are
/// forgotten on the way, so a reused pid rarely matters).
fn agent_of(agents: &Agents, peer: Option<u32>) -> Option<u32> {
    let chain = ancestry(peer?);
    let mut set = agents.lock().unwrap_or_else(|p| p.into_inner());
    set.retain(|p| alive(*p));
    chain.into_iter().find(|p| set.contains(p))
}

async fn handle(stream: UnixStream, hub: Arc<Hub>, url: String, agents: Agents) {
    let peer: Option<u32> = stream
        .peer_cred()
        .ok()
        .and_then(|c| c.pid())
        .and_then(|p| u32::try_from(p).ok());
    let (rd, mut wr) = stream.into_split();
    let mut rd = BufReader::new(rd);
    let line = match tokio::time::timeout(FIRST_LINE, read_line(&mut rd)).await {
        Ok(Some(l)) => l,
        Ok(None) => {
            send(
                &mut wr,
                ServerMsg::error("invalid_request", "expected one JSON line"),
            )
            .await;
            return;
        }
        Err(_) => return,
    };
    let env: Envelope = match serde_json::from_str(&line) {
        Ok(e) => e,
        Err(e) => {
            let m = ServerMsg::error("invalid_request", format!("cannot read the request: {e}"));
            send(&mut wr, m).await;
            return;
        }
    };
    if env.v != VERSION {
        let m = ServerMsg::error(
            "unsupported_version",
            format!(
                "protocol version {} is not supported (this service speaks {VERSION})",
                env.v
            ),
        );
        send(&mut wr, m).await;
        return;
    }
    if let ClientMsg::Hook(call) = env.msg {
        let reply = hook(&hub, *call, peer).await;
        send(&mut wr, reply).await;
        return;
    }
    if let ClientMsg::Publish { request, .. } = &env.msg {
        if let (Some(agent), Some(p)) = (request.agent_pid, peer) {
            if agent > 1 && ancestry(p).contains(&agent) {
                agents
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .insert(agent);
            }
        }
    } else if let Some(agent) = agent_of(&agents, peer) {
        let m = ServerMsg::error(
            "agent_answer",
            format!(
                "refused: this process runs under the agent (pid {agent}) whose requests wait here, and an agent cannot answer its own requests; answer in the approval page or from a terminal outside the agent"
            ),
        );
        send(&mut wr, m).await;
        return;
    }
    let reply = match env.msg {
        ClientMsg::Publish {
            request,
            timeout_ms,
        } => {
            wait_for_answer(&hub, *request, timeout_ms, &mut rd, &mut wr).await;
            return;
        }
        ClientMsg::List => ServerMsg::Pending {
            requests: hub.snapshot(),
        },
        ClientMsg::Answer { id, option } => match hub.answer(&id, &option, "socket").await {
            Ok(res) => ServerMsg::Answered(res),
            Err(e) => ServerMsg::error(e.code(), e.message()),
        },
        // Answered above: evaluating an event answers no request.
        ClientMsg::Hook(_) => return,
        ClientMsg::Login => match hub.mint_login() {
            Ok(t) => ServerMsg::Login {
                url: format!("{url}login?token={t}"),
            },
            Err(_) => ServerMsg::error("internal", "cannot draw a random token"),
        },
    };
    send(&mut wr, reply).await;
}

/// A hook event evaluated by the backend for the hook client (which falls
/// back to the standalone hook on anything but a `hook` reply). Any peer
/// may ask: the answer is what running `shellgate hook` would have said.
async fn hook(hub: &Arc<Hub>, mut call: crate::protocol::HookCall, peer: Option<u32>) -> ServerMsg {
    call.peer_pid = peer;
    let backend = Arc::clone(&hub.backend);
    match tokio::task::spawn_blocking(move || backend.hook(call)).await {
        Ok(Some(r)) => ServerMsg::Hook(r),
        Ok(None) | Err(_) => ServerMsg::error(
            "fallback",
            "the service does not evaluate this event; run the standalone hook",
        ),
    }
}

/// Write one message line; a peer that went away has nothing to read it.
async fn send(wr: &mut tokio::net::unix::OwnedWriteHalf, m: ServerMsg) {
    let _ = wr.write_all(m.line().as_bytes()).await;
}

async fn wait_for_answer(
    hub: &Arc<Hub>,
    request: crate::PublishRequest,
    timeout_ms: u64,
    rd: &mut BufReader<tokio::net::unix::OwnedReadHalf>,
    wr: &mut tokio::net::unix::OwnedWriteHalf,
) {
    // What the page and `pending` show is derived again from the call that
    // an answer will apply, never taken from the publisher (who may be any
    // process that reaches the socket, not only a hook).
    if let Err(m) = request.validate() {
        let m = ServerMsg::error("invalid_request", format!("invalid request: {m}"));
        send(wr, m).await;
        return;
    }
    let agent_pid = request.agent_pid;
    let backend = Arc::clone(&hub.backend);
    let reviewed = match tokio::task::spawn_blocking(move || backend.review(&request)).await {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => {
            send(
                wr,
                ServerMsg::error("invalid_request", format!("refused: {e}")),
            )
            .await;
            return;
        }
        Err(_) => {
            let m = ServerMsg::error("internal", "internal error while reviewing the request");
            send(wr, m).await;
            return;
        }
    };
    // The agent's pid is the publisher's claim the socket checked above,
    // not the backend's to set.
    let reviewed = crate::PublishRequest {
        agent_pid,
        ..reviewed
    };
    let (req, rx) = match hub.publish(reviewed, Duration::from_millis(timeout_ms)) {
        Ok(x) => x,
        Err(e) => {
            send(wr, ServerMsg::error(e.code(), e.message())).await;
            return;
        }
    };
    let id = req.id.clone();
    let published = ServerMsg::Published {
        id: id.clone(),
        deadline_ms: req.deadline_ms,
    };
    if wr.write_all(published.line().as_bytes()).await.is_err() {
        hub.withdraw(&id);
        return;
    }
    let wait = Duration::from_millis(req.deadline_ms.saturating_sub(req.created_ms));
    let deadline = tokio::time::Instant::now() + wait;
    let sleep = tokio::time::sleep_until(deadline);
    tokio::pin!(sleep);
    tokio::pin!(rx);
    let mut past_deadline = false;
    let mut scratch = [0u8; 256];
    loop {
        tokio::select! {
            msg = &mut rx => {
                let reply = match msg {
                    Ok(WaiterMsg::Answered(res)) => ServerMsg::Answered(res),
                    Ok(WaiterMsg::Failed(m)) => ServerMsg::error(
                        "apply_failed",
                        format!("the answer could not be applied: {m}"),
                    ),
                    // The service is stopping: close without a final line.
                    Err(_) => return,
                };
                send(wr, reply).await;
                return;
            }
            _ = &mut sleep, if !past_deadline => {
                if hub.expire(&id) {
                    send(wr, ServerMsg::Expired { id: id.clone() }).await;
                    return;
                }
                // An answer is being applied right now: wait for it.
                past_deadline = true;
            }
            n = rd.read(&mut scratch) => {
                match n {
                    Ok(0) | Err(_) => {
                        hub.withdraw(&id);
                        return;
                    }
                    Ok(_) => {}
                }
            }
        }
    }
}
