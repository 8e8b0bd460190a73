//! The service's shared state: pending requests, what became of answered
//! ones, login tokens and page sessions. One mutex, never held across an
//! await; page clients follow the pending list through a watch channel.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use tokio::sync::{oneshot, watch};

use crate::types::{resolve_reply, Backend, PendingRequest, PublishRequest, Resolution, Verdict};

/// 128 bits from the OS generator as 32 lowercase hex digits.
pub(crate) fn random_id() -> Result<String, getrandom::Error> {
    let mut b = [0u8; 16];
    getrandom::fill(&mut b)?;
    Ok(b.iter().map(|x| format!("{x:02x}")).collect())
}

/// Equality that does not stop at the first differing byte.
pub(crate) fn same_secret(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

/// What the waiting hook is told.
#[derive(Debug)]
pub(crate) enum WaiterMsg {
    Answered(Resolution),
    Failed(String),
}

/// Why an answer was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum AnswerError {
    Unknown,
    Expired,
    Withdrawn,
    AlreadyAnswered,
    NotOffered(String),
    ApplyFailed(String),
    Closing,
}

impl AnswerError {
    pub(crate) fn code(&self) -> &'static str {
        match self {
            AnswerError::Unknown => "unknown_id",
            AnswerError::Expired => "expired",
            AnswerError::Withdrawn => "withdrawn",
            AnswerError::AlreadyAnswered => "already_answered",
            AnswerError::NotOffered(_) => "not_offered",
            AnswerError::ApplyFailed(_) => "apply_failed",
            AnswerError::Closing => "closing",
        }
    }

    pub(crate) fn message(&self) -> String {
        match self {
            AnswerError::Unknown => "no such pending request (unknown id)".into(),
            AnswerError::Expired => {
                "this request expired: its deadline passed before an answer; the agent was told no"
                    .into()
            }
            AnswerError::Withdrawn => {
                "this request was withdrawn: the waiting hook went away before an answer".into()
            }
            AnswerError::AlreadyAnswered => "already answered".into(),
            AnswerError::NotOffered(m) => m.clone(),
            AnswerError::ApplyFailed(m) => format!("the answer could not be applied: {m}"),
            AnswerError::Closing => "the approval service is stopping".into(),
        }
    }
}

/// Why a publish was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PublishError {
    Invalid(String),
    TooMany(usize),
    Closing,
    Random,
}

impl PublishError {
    pub(crate) fn code(&self) -> &'static str {
        match self {
            PublishError::Invalid(_) => "invalid_request",
            PublishError::TooMany(_) => "too_many_pending",
            PublishError::Closing => "closing",
            PublishError::Random => "internal",
        }
    }

    pub(crate) fn message(&self) -> String {
        match self {
            PublishError::Invalid(m) => format!("invalid request: {m}"),
            PublishError::TooMany(n) => format!("too many pending requests ({n})"),
            PublishError::Closing => "the approval service is stopping".into(),
            PublishError::Random => "cannot draw a random id".into(),
        }
    }
}

enum Done {
    Answering,
    Answered,
    Failed,
    Expired,
    Withdrawn,
}

struct Entry {
    req: PendingRequest,
    seq: u64,
    waiter: oneshot::Sender<WaiterMsg>,
}

/// A logged-in page: its cookie value is the map key.
struct WebSession {
    csrf: String,
    last_seen: Instant,
}

#[derive(Default)]
struct Inner {
    pending: HashMap<String, Entry>,
    done: HashMap<String, (Done, Instant)>,
    seq: u64,
    /// One-time login tokens and when they stop working.
    logins: HashMap<String, Instant>,
    sessions: HashMap<String, WebSession>,
    closing: bool,
}

/// How long the fate of a finished request is remembered (for 409/410).
const DONE_TTL: Duration = Duration::from_secs(3600);
const DONE_MAX: usize = 20_000;
/// Page sessions kept at most; the least recently seen goes first.
const SESSIONS_MAX: usize = 64;

pub(crate) struct Hub {
    pub(crate) backend: Arc<dyn Backend>,
    inner: Mutex<Inner>,
    tx: watch::Sender<Arc<Vec<PendingRequest>>>,
    max_pending: usize,
    max_wait: Duration,
}

impl Hub {
    pub(crate) fn new(backend: Arc<dyn Backend>, max_pending: usize, max_wait: Duration) -> Hub {
        let (tx, _) = watch::channel(Arc::new(Vec::new()));
        Hub {
            backend,
            inner: Mutex::new(Inner::default()),
            tx,
            max_pending,
            max_wait,
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic while holding the lock leaves consistent maps (every
        // mutation is a single insert/remove); keep serving.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn broadcast(&self, g: &Inner) {
        let mut list: Vec<(&u64, &PendingRequest)> =
            g.pending.values().map(|e| (&e.seq, &e.req)).collect();
        list.sort_by_key(|(s, _)| **s);
        let snap: Vec<PendingRequest> = list.into_iter().map(|(_, r)| r.clone()).collect();
        self.tx.send_replace(Arc::new(snap));
    }

    fn finish(g: &mut Inner, id: &str, how: Done) {
        let now = Instant::now();
        if g.done.len() >= DONE_MAX {
            g.done.retain(|_, (_, t)| now.duration_since(*t) < DONE_TTL);
        }
        if g.done.len() >= DONE_MAX {
            // Still full of recent entries: forget the oldest finished ones.
            let mut times: Vec<Instant> = g.done.values().map(|(_, t)| *t).collect();
            times.sort();
            if let Some(cut) = times.get(DONE_MAX / 2).copied() {
                g.done
                    .retain(|_, (d, t)| matches!(d, Done::Answering) || *t > cut);
            }
        }
        g.done.insert(id.to_string(), (how, now));
    }

    pub(crate) fn subscribe(&self) -> watch::Receiver<Arc<Vec<PendingRequest>>> {
        self.tx.subscribe()
    }

    pub(crate) fn snapshot(&self) -> Vec<PendingRequest> {
        self.tx.borrow().as_ref().clone()
    }

    /// Add a pending request; the receiver gets the answer.
    pub(crate) fn publish(
        &self,
        request: PublishRequest,
        timeout: Duration,
    ) -> Result<(PendingRequest, oneshot::Receiver<WaiterMsg>), PublishError> {
        request.validate().map_err(PublishError::Invalid)?;
        let id = random_id().map_err(|_| PublishError::Random)?;
        let timeout = timeout.min(self.max_wait);
        let created_ms = now_ms();
        let deadline_ms =
            created_ms.saturating_add(u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX));
        let (waiter, rx) = oneshot::channel();
        let mut g = self.lock();
        if g.closing {
            return Err(PublishError::Closing);
        }
        if g.pending.len() >= self.max_pending {
            return Err(PublishError::TooMany(g.pending.len()));
        }
        g.seq += 1;
        let req = PendingRequest {
            id: id.clone(),
            created_ms,
            deadline_ms,
            request,
        };
        let seq = g.seq;
        g.pending.insert(
            id,
            Entry {
                req: req.clone(),
                seq,
                waiter,
            },
        );
        self.broadcast(&g);
        Ok((req, rx))
    }

    /// The deadline passed: drop the request if nobody answered it yet.
    /// `false` when an answer is being applied (wait for it).
    pub(crate) fn expire(&self, id: &str) -> bool {
        let mut g = self.lock();
        if g.pending.remove(id).is_some() {
            Hub::finish(&mut g, id, Done::Expired);
            self.broadcast(&g);
            true
        } else {
            false
        }
    }

    /// The waiting hook went away.
    pub(crate) fn withdraw(&self, id: &str) {
        let mut g = self.lock();
        if g.pending.remove(id).is_some() {
            Hub::finish(&mut g, id, Done::Withdrawn);
            self.broadcast(&g);
        }
    }

    /// Stop taking requests and drop the waiting ones (their hooks see the
    /// connection close and fall back).
    pub(crate) fn close(&self) {
        let mut g = self.lock();
        g.closing = true;
        g.pending.clear();
        self.broadcast(&g);
    }

    /// Answer a pending request: take it out (so a second answer is refused
    /// with "already answered"), apply it through the backend once, tell the
    /// waiting hook. The work runs in its own task: a caller that goes away
    /// mid-way does not leave the hook without its answer.
    pub(crate) async fn answer(
        self: &Arc<Self>,
        id: &str,
        reply: &str,
        via: &str,
    ) -> Result<Resolution, AnswerError> {
        let (entry, option) = {
            let mut g = self.lock();
            if g.closing {
                return Err(AnswerError::Closing);
            }
            let Some(e) = g.pending.get(id) else {
                return Err(match g.done.get(id) {
                    Some((Done::Answering | Done::Answered | Done::Failed, _)) => {
                        AnswerError::AlreadyAnswered
                    }
                    Some((Done::Expired, _)) => AnswerError::Expired,
                    Some((Done::Withdrawn, _)) => AnswerError::Withdrawn,
                    None => AnswerError::Unknown,
                });
            };
            let option =
                resolve_reply(reply, &e.req.request.options).map_err(AnswerError::NotOffered)?;
            let Some(e) = g.pending.remove(id) else {
                return Err(AnswerError::Unknown);
            };
            Hub::finish(&mut g, id, Done::Answering);
            self.broadcast(&g);
            (e, option)
        };
        let hub = Arc::clone(self);
        let via = via.to_string();
        let task = tokio::spawn(async move {
            let Entry { req, waiter, .. } = entry;
            let backend = Arc::clone(&hub.backend);
            let (req2, opt2) = (req.clone(), option.clone());
            let applied = tokio::task::spawn_blocking(move || backend.apply(&req2, &opt2))
                .await
                .map_err(|_| "internal error while applying the answer".to_string())
                .and_then(|r| r.map_err(|e| e.to_string()));
            match applied {
                Ok(out) => {
                    let decision = if option == "deny" {
                        Verdict::Deny
                    } else {
                        out.decision
                    };
                    let res = Resolution {
                        id: req.id.clone(),
                        option,
                        decision,
                        resolution: out.resolution,
                        skipped: out.skipped,
                        via,
                    };
                    Hub::finish(&mut hub.lock(), &req.id, Done::Answered);
                    let _ = waiter.send(WaiterMsg::Answered(res.clone()));
                    Ok(res)
                }
                Err(m) => {
                    Hub::finish(&mut hub.lock(), &req.id, Done::Failed);
                    let _ = waiter.send(WaiterMsg::Failed(m.clone()));
                    Err(AnswerError::ApplyFailed(m))
                }
            }
        });
        task.await
            .unwrap_or_else(|_| Err(AnswerError::ApplyFailed("internal error".into())))
    }

    // ----- login tokens and page sessions ------------------------------

    /// A new one-time login token, valid for [`crate::server::LOGIN_TTL`].
    pub(crate) fn mint_login(&self) -> Result<String, getrandom::Error> {
        let token = random_id()?;
        let mut g = self.lock();
        let now = Instant::now();
        g.logins.retain(|_, exp| *exp > now);
        g.logins
            .insert(token.clone(), now + crate::server::LOGIN_TTL);
        Ok(token)
    }

    /// Use a login token (once) and open a page session: (cookie, csrf).
    pub(crate) fn login(&self, token: &str) -> Option<(String, String)> {
        let mut g = self.lock();
        let now = Instant::now();
        let key = g.logins.keys().find(|k| same_secret(k, token)).cloned()?;
        let exp = g.logins.remove(&key)?;
        if exp <= now {
            return None;
        }
        let cookie = random_id().ok()?;
        let csrf = random_id().ok()?;
        if g.sessions.len() >= SESSIONS_MAX {
            let oldest = g
                .sessions
                .iter()
                .min_by_key(|(_, s)| s.last_seen)
                .map(|(k, _)| k.clone());
            if let Some(k) = oldest {
                g.sessions.remove(&k);
            }
        }
        g.sessions.insert(
            cookie.clone(),
            WebSession {
                csrf: csrf.clone(),
                last_seen: now,
            },
        );
        Some((cookie, csrf))
    }

    /// The CSRF token of a page session, if the cookie is a live one.
    pub(crate) fn session_csrf(&self, cookie: &str) -> Option<String> {
        let mut g = self.lock();
        let key = g
            .sessions
            .keys()
            .find(|k| same_secret(k, cookie))
            .cloned()?;
        let s = g.sessions.get_mut(&key)?;
        s.last_seen = Instant::now();
        Some(s.csrf.clone())
    }

    pub(crate) fn logout(&self, cookie: &str) {
        let mut g = self.lock();
        g.sessions.retain(|k, _| !same_secret(k, cookie));
    }
}
