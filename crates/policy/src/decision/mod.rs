//! The policy decision (SPEC §9): the ordered layers of §9.1 over a call.
//! Pure apart from the two traits it asks: grants and one-time approvals
//! through [`Lookups`], file-system facts through [`Fs`].
//!
//! - `mod.rs` — the types, and [`evaluate`]: the layers in order;
//! - `layers.rs` — one function per layer of §9.1 for shell calls;
//! - `statuses.rs` — the candidate list and each candidate's status;
//! - `safe_space.rs` — safe spaces, the autonomous zone, secret-looking names;
//! - `ask.rs` — the last layer: the question, its options and hints;
//! - `file_tools.rs` — the same layers for file tools (§9.6);
//! - `answer.rs` — what an answer to a prompt persists (§12.1);
//! - `sandboxed.rs` — the sandboxed allow (§18) and the command it runs.

mod answer;
mod ask;
mod file_tools;
mod layers;
mod safe_space;
mod sandboxed;
mod statuses;

use serde::Serialize;

use crate::config::{expand_home, PolicyConfig};
use crate::fs::{self, Fs};
use crate::model::{Audience, Channel, Os, FILE_TOOLS, SHELL_TOOL};
use crate::prompt::Prompt;
use crate::safe_verbs::SafeVerbs;
use shellgate_shell::paths;

pub use answer::{plan_answer, Persist};
pub use safe_space::secret_looking;
pub use sandboxed::{sh_quote, SandboxOffer, SandboxRun};

/// Commands longer than this are refused (`invalid_call`).
pub const MAX_COMMAND_BYTES: usize = 65_536;

/// One call to authorize.
#[derive(Debug, Clone)]
pub struct Request {
    pub tool: String,
    /// The shell command, or the path for a file tool.
    pub command: String,
    /// Explicit working directory.
    pub working_directory: Option<String>,
}

/// Who is asking, and where.
#[derive(Debug, Clone)]
pub struct Context<'a> {
    pub session: String,
    pub audience: Audience,
    pub channel: Channel,
    pub os: Os,
    pub project_dir: Option<String>,
    /// `$SHELLGATE_HOME/sessions/<id>`.
    pub session_dir: String,
    /// The user's home directory.
    pub home: String,
    /// `$SHELLGATE_HOME`.
    pub gate_home: String,
    /// Where file-system facts come from ([`crate::fs::OsFs`] for the real
    /// disk).
    pub fs: &'a dyn Fs,
    /// The environment the command runs in, as far as the rules read it.
    pub run_env: RunEnv<'a>,
}

/// What the environment the command runs in says about where programs and
/// the user's configuration are: the host's environment, which the command
/// inherits. The edge reads it; the policy never reads the process
/// environment itself.
#[derive(Debug, Clone, Copy, Default)]
pub struct RunEnv<'a> {
    /// `PATH`: where bash finds a bare program name. `None`: unset. An
    /// entry holding U+FFFD (bytes that were not UTF-8) is one the rules
    /// cannot know: they fail closed on it.
    pub path: Option<&'a str>,
    /// `XDG_CONFIG_HOME`: where git finds the user's `git/config`.
    pub xdg_config_home: Option<&'a str>,
    /// `CDPATH`: where `cd NAME` may go when NAME is not below the working
    /// directory (rt7 F11: `cd .config` went to `~/.config`).
    pub cdpath: Option<&'a str>,
}

/// A grant that matched, as reported in the decision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GrantRef {
    pub verb: String,
    pub directory: Option<String>,
}

/// I/O the policy needs: grants and one-time approvals.
pub trait Lookups {
    fn persistent_grant(
        &self,
        audience: Audience,
        tool: &str,
        verb: &str,
        dir: Option<&str>,
    ) -> Option<GrantRef>;
    fn session_grant(
        &self,
        audience: Audience,
        tool: &str,
        verb: &str,
        dir: Option<&str>,
    ) -> Option<GrantRef>;
    /// Consume a one-time approval for exactly this call, if recorded.
    fn take_once(&self, tool: &str, command: &str, cwd: Option<&str>) -> bool;
    /// Whether a sandboxed run of exactly this call failed in this session
    /// (§18: it then asks as before).
    fn sandbox_failed(&self, _tool: &str, _command: &str, _cwd: Option<&str>) -> bool {
        false
    }
}

/// Lookups with nothing recorded.
pub struct NoLookups;

impl Lookups for NoLookups {
    fn persistent_grant(&self, _: Audience, _: &str, _: &str, _: Option<&str>) -> Option<GrantRef> {
        None
    }
    fn session_grant(&self, _: Audience, _: &str, _: &str, _: Option<&str>) -> Option<GrantRef> {
        None
    }
    fn take_once(&self, _: &str, _: &str, _: Option<&str>) -> bool {
        false
    }
}

/// Status of a candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Unapproved,
    Granted,
    GrantedSession,
    Safe,
    SideEffect,
}

#[derive(Debug, Clone, Serialize)]
pub struct Candidate {
    pub verb: String,
    pub directory: Option<String>,
    pub status: Status,
    pub grant: Option<GrantRef>,
}

/// The decision object of §2.3.
#[derive(Debug, Clone, Serialize)]
pub struct Decision {
    pub decision: &'static str,
    pub reason: String,
    pub message: String,
    pub tool: String,
    pub command: String,
    pub display: String,
    pub cwd: Option<String>,
    pub audience: Audience,
    pub channel: Channel,
    pub complex: bool,
    pub complex_reasons: Vec<String>,
    pub candidates: Vec<Candidate>,
    pub patterns: Vec<String>,
    pub options: Option<Vec<String>>,
    pub prompt: Option<Prompt>,
    pub hint: Option<String>,
    /// For reason `sandboxed` (§18): the command to run instead of the
    /// call. Absent from the JSON otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<SandboxRun>,
    /// Location text of the prompt (for resolution lines); not serialized.
    #[serde(skip)]
    pub location: String,
    /// Verbs shown to the human (for resolution lines); not serialized.
    #[serde(skip)]
    pub display_verbs: Vec<String>,
    /// Verbs that do not name what runs (a subcommand or a runner's command
    /// line the walk could not name): no persistent option is offered for
    /// them; not serialized.
    #[serde(skip)]
    pub unnamed_verbs: Vec<String>,
    /// Why no grant is offered for some of [`Decision::unnamed_verbs`]
    /// (`verb: reason`), added to the ask's message so the human reads
    /// it before answering Once; not serialized on their own.
    #[serde(skip)]
    pub cautions: Vec<String>,
    /// Why the sandboxed layer (§18) did not allow the call, when it was
    /// consulted (for `explain`); not serialized.
    #[serde(skip)]
    pub not_sandboxed: Option<String>,
}

impl Decision {
    pub fn exit_code(&self) -> i32 {
        match self.decision {
            "allow" => 0,
            "ask" => 10,
            _ => 11,
        }
    }
}

/// Configuration in force for evaluations.
#[derive(Debug, Clone)]
pub struct Policy {
    pub config: PolicyConfig,
    safe: [SafeVerbs; 3],
    /// The sandboxed allow is offered (§18); `None` unless the caller set it.
    sandbox: Option<SandboxOffer>,
    /// Read roots of the last call's inputs (a pure function of them).
    pub(crate) read_roots: crate::read_roots::ReadRootsCache,
}

impl Policy {
    pub fn new(config: PolicyConfig, user_safe: &[(Os, Vec<String>)]) -> Policy {
        let mut safe = [
            SafeVerbs::bundled(Os::Linux),
            SafeVerbs::bundled(Os::Macos),
            SafeVerbs::bundled(Os::Windows),
        ];
        for (os, verbs) in user_safe {
            safe[os_index(*os)].add(verbs);
        }
        Policy {
            config,
            safe,
            sandbox: None,
            read_roots: Default::default(),
        }
    }

    pub fn safe_verbs(&self, os: Os) -> &SafeVerbs {
        &self.safe[os_index(os)]
    }
}

fn os_index(os: Os) -> usize {
    match os {
        Os::Linux => 0,
        Os::Macos => 1,
        Os::Windows => 2,
    }
}

/// The call's working directory (§1): the first that exists of explicit
/// working directory, project dir, session dir.
pub fn resolve_cwd(req: &Request, ctx: &Context) -> Option<String> {
    let candidates = [
        req.working_directory.as_deref(),
        ctx.project_dir.as_deref(),
        Some(ctx.session_dir.as_str()),
    ];
    candidates
        .into_iter()
        .flatten()
        .map(|d| paths::normalize(&expand_home(d, &ctx.home)))
        .find(|d| fs::is_dir(ctx.fs, d))
}

struct Base {
    tool: String,
    command: String,
    display: String,
    cwd: Option<String>,
    audience: Audience,
    channel: Channel,
}

impl Base {
    fn finish(
        &self,
        decision: &'static str,
        reason: impl Into<String>,
        message: impl Into<String>,
    ) -> Decision {
        Decision {
            decision,
            reason: reason.into(),
            message: message.into(),
            tool: self.tool.clone(),
            command: self.command.clone(),
            display: self.display.clone(),
            cwd: self.cwd.clone(),
            audience: self.audience,
            channel: self.channel,
            complex: false,
            complex_reasons: Vec::new(),
            candidates: Vec::new(),
            patterns: Vec::new(),
            options: None,
            prompt: None,
            hint: None,
            sandbox: None,
            location: String::new(),
            display_verbs: Vec::new(),
            unnamed_verbs: Vec::new(),
            cautions: Vec::new(),
            not_sandboxed: None,
        }
    }
}

/// Evaluate a call: the layers of §9.1 in order, the first terminal result
/// wins.
pub fn evaluate(policy: &Policy, req: &Request, ctx: &Context, lookups: &dyn Lookups) -> Decision {
    // Every layer asks the same file-system questions: each is answered
    // once per evaluation.
    let cached = crate::resolve::CachingFs::new(ctx.fs);
    let ctx = &Context {
        fs: &cached,
        ..ctx.clone()
    };
    if FILE_TOOLS.contains(&req.tool.as_str()) {
        return file_tools::evaluate(policy, req, ctx, lookups);
    }
    let cwd = resolve_cwd(req, ctx);
    // 1. Input validation.
    let (base, mut analysis) = match layers::validate(req, ctx, cwd.clone(), policy) {
        Ok(v) => v,
        Err(invalid) => return *invalid,
    };
    // 2. Tool admission and mode.
    let mode = match layers::admit(policy, req, ctx, &base) {
        Ok(m) => m,
        Err(denied) => return *denied,
    };
    // Candidates (complex reasons from dynamic operands join the analysis).
    let resolver = layers::resolver(ctx, &analysis);
    let per_inv = layers::candidates_of(&mut analysis, &resolver);
    let mut call = layers::ShellCall {
        policy,
        req,
        ctx,
        lookups,
        base,
        cwd,
        analysis,
        per_inv,
        resolver,
        cands: Vec::new(),
    };
    // 3. Hard deny, on everything found.
    if let Some(d) = layers::hard_deny(&call) {
        return d;
    }
    // 4. Protected paths (and what commands create: complex reasons).
    if let Some(d) = layers::protected(&mut call) {
        return d;
    }
    call.cands = statuses::candidate_states(&call);
    // 5. Autonomous zone on non-interactive channels.
    if let Some(d) = layers::zone(&call) {
        return d;
    }
    // 6. `auto` mode.
    if let Some(d) = layers::tool_auto(&call, mode) {
        return d;
    }
    // 7. One-time approval.
    if let Some(d) = layers::once(&call) {
        return d;
    }
    // 8. Complex.
    if let Some(d) = layers::complex(&call) {
        return d;
    }
    let mut out = statuses::with_grants(&call);
    // 9. All side effects; 10. safe-verb short-circuit; 11. granted.
    if layers::side_effects(&mut out) || layers::safe_verbs(&mut out) || layers::grants(&mut out) {
        return out;
    }
    // 11b. Sandboxed allow (§18).
    if sandboxed::sandboxed(&call, &mut out) {
        return out;
    }
    // 12. Ask (or deny without a human).
    ask::ask(&mut out, ctx);
    out
}

/// Whether a tool name is the shell tool.
pub fn is_shell_tool(tool: &str) -> bool {
    tool == SHELL_TOOL
}
