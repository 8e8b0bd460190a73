//! The sandboxed allow (SPEC §18), between the grants (§9.1 step 11) and
//! the ask (step 12): a call that would ask only because of first-time
//! build, test or edit commands inside the project is allowed with reason
//! `sandboxed`, and the decision carries the command the host must run
//! instead — the same call wrapped in `shellgate sandbox`.
//!
//! It applies only when all of these hold:
//! - the caller can run a rewritten command and the kernel can confine it
//!   ([`Policy::offer_sandbox`], set by the command line's edge);
//! - the audience's `sandbox` setting is `auto` (default for `personal`);
//! - every command the call runs fits the sandbox ([`crate::sandboxable`]):
//!   the unapproved ones are builds, tests, project programs or edits, the
//!   others (safe or granted) are not network, installer, runner or unknown
//!   programs — everything runs confined, so nothing may need the network;
//! - every path an unapproved command names lies in the project or the
//!   session directory (lexically and with no symbolic link on the way),
//!   is not a secret, and is not inside `.git` or a host's control files;
//! - the same call did not already fail in the sandbox in this session
//!   (then it asks as before);
//! - nothing is left running in the background (`cmd &`, `setsid`): the
//!   sandbox ends every process of the command when it returns.
//!
//! Hard deny, protected paths, zones, `auto` mode, once and complex calls
//! have all been decided before this layer runs.

use serde::Serialize;
use shellgate_programs::Role;
use shellgate_shell::paths;

use super::layers::ShellCall;
use super::statuses::real;
use super::{Decision, Policy, Status};
use crate::candidates::{mentions_secret_variable, Touch, TouchKind};
use crate::config::{expand_home, SandboxMode};
use crate::fs;
use crate::model::Os;
use crate::read_roots::secret_path;
use crate::sandboxable::{fit, model_paths, releases, writes_redirect, Fit, Place, ENV_BINS};
use shellgate_shell::word::{SubstKind, Word};

/// What the caller offers: it can run the rewritten command, with this
/// program as `shellgate` (the kernel was found able to confine).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxOffer {
    /// Absolute path of the `shellgate` executable that runs `sandbox`.
    pub program: String,
    /// The system temp directory the sandbox lets a command write (its
    /// physical path: `$TMPDIR`, else `/tmp`). `None`: not known, or it
    /// holds the home, when the sandbox gives the command a temp directory
    /// of its own instead.
    pub temp_dir: Option<String>,
}

/// The command a host runs instead of the call (decision JSON `sandbox`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SandboxRun {
    /// `build` or `edit` (SPEC §18.1).
    pub profile: &'static str,
    /// The writable project of the confinement.
    pub project_dir: String,
    /// The wrapped command line, for a shell (Claude Code's `updatedInput`).
    pub command: String,
    /// The same as an argument vector (what `shellgate exec` runs).
    #[serde(skip)]
    pub argv: Vec<String>,
}

/// Names inside a project that the sandbox write-protects or that run
/// code by themselves when written (git hooks and config, hosts' settings,
/// direnv, editors' task files): a command writing there asks.
const CONTROL_NAMES: &[&str] = &[
    ".git",
    ".claude",
    ".codex",
    ".gemini",
    ".mcp.json",
    ".envrc",
    ".vscode",
    ".idea",
    ".devcontainer",
    ".husky",
    ".githooks",
    ".shellgate",
    // Other agents' and editors' project settings: the servers and
    // commands they name start with the next session (rt12 F8).
    ".cursor",
    ".roo",
    ".amazonq",
    ".kiro",
    ".zed",
    ".continue",
    ".windsurf",
    ".cline",
    ".clinerules",
    "opencode.json",
    "opencode.jsonc",
    ".opencode",
    ".aider.conf.yml",
];

impl Policy {
    /// Offer the sandboxed allow: the caller runs rewritten commands and
    /// the kernel can confine them; `program` is the `shellgate` to run.
    pub fn offer_sandbox(&mut self, program: impl Into<String>) {
        self.sandbox = Some(SandboxOffer {
            program: program.into(),
            temp_dir: None,
        });
    }

    /// Tell an offer made which system temp directory the sandbox lets a
    /// command write (see [`SandboxOffer::temp_dir`]).
    pub fn sandbox_temp_dir(&mut self, dir: impl Into<String>) {
        if let Some(o) = self.sandbox.as_mut() {
            o.temp_dir = Some(dir.into());
        }
    }

    /// The offer, when made.
    pub fn sandbox_offer(&self) -> Option<&SandboxOffer> {
        self.sandbox.as_ref()
    }
}

/// Quote a word for a POSIX shell (single quotes; bare when plain).
pub fn sh_quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars().all(|c| {
            c.is_ascii_alphanumeric() || matches!(c, '/' | '.' | '_' | '-' | '=' | ':' | ',')
        });
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// The sandboxed layer: `true` when the call is now allowed `sandboxed`.
pub(super) fn sandboxed(call: &ShellCall, out: &mut Decision) -> bool {
    let run = match plan(call, out) {
        Ok(run) => run,
        Err(why) => {
            out.not_sandboxed = Some(why.to_string());
            return false;
        }
    };
    out.decision = "allow";
    out.reason = "sandboxed".into();
    out.message = format!(
        "runs inside the sandbox (profile {}): writes only inside {}, no network",
        run.profile, run.project_dir
    );
    out.sandbox = Some(run);
    true
}

/// Why a program is not run sandboxed: its fit (`sandboxable::fit`) is
/// neither a build nor an edit, or only passive where something needs
/// approving.
const NOT_A_BUILD_OR_EDIT: &str =
    "a program the sandbox does not run without a human (not a build, test or edit the model knows)";

fn plan(call: &ShellCall, out: &Decision) -> Result<SandboxRun, &'static str> {
    let ctx = call.ctx;
    let offer = call
        .policy
        .sandbox_offer()
        .ok_or("this machine cannot confine commands (or the policy turns the sandbox off)")?;
    if call.policy.config.sandbox_mode(ctx.audience) != SandboxMode::Auto {
        return Err("the sandboxed allow is not on for this audience (policy.toml)");
    }
    if ctx.os == Os::Windows {
        return Err("there is no sandbox on Windows");
    }
    if call.analysis.is_complex() || call.analysis.invocations.is_empty() {
        return Err("the command is complex");
    }
    // The sandbox ends with the command: a job left in the background
    // (a server for later commands, `go run ./cmd/api &`) would be
    // killed at once and the call would seem to have worked. And a
    // server confined there listens where no later command reaches it.
    if call.analysis.background
        || call
            .analysis
            .invocations
            .iter()
            .any(|inv| inv.wrappers.iter().any(|w| w == "setsid"))
    {
        return Err("it leaves a job running after it returns, which the sandbox would end");
    }
    // Where the command may write: the project, else the session directory.
    let session_dir = paths::normalize(&ctx.session_dir);
    let project = match &ctx.project_dir {
        Some(p) => paths::normalize(&expand_home(p, &ctx.home)),
        None => session_dir.clone(),
    };
    let home = paths::normalize(&ctx.home);
    let gate = paths::normalize(&ctx.gate_home);
    if project == "/"
        || paths::is_within(&home, &project)
        || (paths::is_within(&project, &gate) && !paths::is_within(&project, &session_dir))
    {
        return Err(
            "the project directory is /, the home or an ancestor of it, or in the gate's home",
        );
    }
    let inside = |p: &str| {
        [&project, &session_dir]
            .iter()
            .any(|root| fs::contains(ctx.fs, root, p))
    };
    let safe = call.policy.safe_verbs(ctx.os);
    // The policy's read roots, needed only for a touch outside the project.
    let roots = std::cell::OnceCell::new();
    let roots = || {
        roots.get_or_init(|| {
            call.policy
                .read_roots
                .get(&call.policy.config, &ctx.home, ctx.audience, ctx.os)
        })
    };
    // The system temp directory: what a sandboxed command may read there
    // (the sandbox reads everywhere but secrets) and, where the sandbox
    // lets it write there, write (`go test -coverprofile=/tmp/c.out`,
    // `fuzz_parse /tmp/crash.kvp`). Never a path in the home or the gate's
    // home, as written or as the kernel resolves it (a home below `/tmp`,
    // a link in `/tmp` leading into `~`).
    let kernel_of = |p: &str| {
        crate::resolve::kernel(ctx.fs, p, true)
            .path()
            .map(str::to_string)
    };
    let (k_home, k_gate) = (kernel_of(&home), kernel_of(&gate));
    let temp_place = |root: &str, lexical: &str, raw: &str, follow: bool| {
        let mine = |p: &str, h: &str, g: &str| {
            paths::is_within(p, root)
                && p != root
                && !paths::is_within(p, h)
                && !paths::is_within(p, g)
        };
        let (Some(kh), Some(kg), Some(kr)) = (&k_home, &k_gate, kernel_of(root)) else {
            return false;
        };
        let resolved = crate::resolve::kernel(ctx.fs, raw, follow);
        mine(lexical, &home, &gate)
            && resolved.path().is_some_and(|k| {
                paths::is_within(k, &kr)
                    && k != kr
                    && !paths::is_within(k, kh)
                    && !paths::is_within(k, kg)
            })
    };
    let write_temp = offer.temp_dir.clone();
    let in_temp = |lexical: &str, raw: &str, follow: bool, writes: bool| {
        let roots: Vec<&str> = if writes {
            write_temp.iter().map(String::as_str).collect()
        } else {
            std::iter::once(SYSTEM_TEMP)
                .chain(write_temp.as_deref())
                .collect()
        };
        roots
            .iter()
            .any(|root| temp_place(root, lexical, raw, follow))
    };
    // A write the sandbox does not let happen there would only fail the
    // run (the next call asks); what the model does not know to be a write
    // (a project program's operand) is left to the kernel.
    // What may be read there: data — what a copy or an edit moves
    // (`cp /tmp/crash.kvp tests/data/`) and a project program's operands
    // (`./build/fuzz /tmp/crash.kvp`), which no model reads (`modelled`:
    // the program has one). Never a known build tool's path, which may be code or configuration
    // it loads (`jest --testResultsProcessor=/tmp/p.js`, `eslint
    // --format=/tmp/f.js`, `pytest --rootdir=/tmp/x`): /tmp is anyone's.
    let temp_touch = |t: &Touch, f: Fit, modelled: bool| {
        let write = known_write(t);
        let data_read = match f {
            Fit::Edit => true,
            _ => !modelled && t.kind == TouchKind::Operand && t.role.is_none(),
        };
        !inside(&t.path) && (write || data_read) && in_temp(&t.path, &t.raw, t.follow, write)
    };
    // An option's path there: written output (`-coverprofile=/tmp/c.out`);
    // read only by a copy or an edit (see `temp_touch`).
    let temp_option = |p: &str, role: Role, f: Fit| match role {
        Role::Write | Role::ReadWrite => in_temp(p, p, true, true),
        Role::Read | Role::List => f == Fit::Edit && in_temp(p, p, true, false),
        // `any` may be a module the tool loads (`jest --reporters=/tmp/r.js`).
        _ => false,
    };
    let regular = |p: &str| matches!(ctx.fs.lstat(p), Ok(fs::FileKind::File));
    let place = Place {
        in_project: &inside,
        regular_file: &regular,
        search_path: ctx.run_env.path,
    };
    let mut build = false;
    for (inv, cc) in call.analysis.invocations.iter().zip(call.per_inv.iter()) {
        // A runner's command line is judged through the runner; other inner
        // commands (xargs, find -exec) are not modelled here.
        let Some(cc) = cc.as_ref() else {
            if inv
                .wrappers
                .first()
                .is_some_and(|w| w.starts_with("runner:"))
            {
                continue;
            }
            return Err("a command it runs (xargs, find -exec) is not judged on its own");
        };
        // Only what the command shows at its top level runs confined
        // without a human: not a write hidden in a substitution, not an
        // option or program text no grant covers, not a release step.
        if inv.uncovered.iter().any(|u| !project_load_path(inv, u)) {
            return Err("an option or program text no grant covers");
        }
        if releases(&cc.verb) {
            return Err("a release or publishing step");
        }
        // A credential's variable put into a word, a here-string or an
        // expanding heredoc (`git commit -m "$(cat <<< "$GITHUB_TOKEN")"`):
        // a human sees where it goes.
        if mentions_secret_variable(inv) || call.resolver.secret_in_call {
            return Err("it puts a credential's variable into its words");
        }
        if super::safe_space::git_prints_staged_secret(inv, ctx) {
            return Err("git would print a secret-looking file staged in the index");
        }
        // A secret-looking file it names (`git commit -F build/.en?`): the
        // sandbox hides the project's secrets only to a depth and outside
        // build directories (rt10 F19), so a named one is a human's call.
        let ci = super::safe_space::ci(ctx);
        if cc
            .touches
            .iter()
            .any(|t| crate::secrets::touch_names_secret(ctx.fs, t, ci))
        {
            return Err("it names a secret-looking file");
        }
        // A command substitution runs confined too; it may only read
        // (`git commit -m "$(cat <<'EOF' …)"`, `make -j$(nproc)`): every
        // candidate it names is safe or a side effect, and it redirects no
        // output into a file.
        let mut mine = out.candidates.iter().filter(|c| c.verb == cc.verb);
        let read_only = mine.clone().next().is_some()
            && mine.all(|c| matches!(c.status, Status::Safe | Status::SideEffect));
        if inv.in_substitution {
            if !read_only || writes_redirect(inv) {
                return Err("a command substitution does more than read");
            }
            continue;
        }
        // Already safe where it runs (`node --version && npm test`): it
        // runs confined with the rest, which only narrows what it may do.
        if read_only {
            continue;
        }
        let f = fit(inv, &ctx.home, safe, &place);
        if f == Fit::No {
            return Err(NOT_A_BUILD_OR_EDIT);
        }
        // A copy, archive or walk that follows the links in its trees
        // (`cp -rL`, `tar -h`, `zip -r`) reads and writes what they lead
        // to: only trees whose links stay in the project run without a
        // human (the rule above for paths, applied below them; rt12 S1).
        if !super::safe_space::grant_holds_for_trees(ctx, Some(&project), inv, cc) {
            return Err("it follows links in a tree that lead out of the project");
        }
        let unapproved = cc.dirs.iter().any(|d| {
            out.candidates
                .iter()
                .any(|c| c.verb == cc.verb && &c.directory == d && c.status == Status::Unapproved)
        });
        if !unapproved {
            continue;
        }
        match f {
            Fit::Build => build = true,
            Fit::Edit => {}
            Fit::Passive | Fit::No => return Err(NOT_A_BUILD_OR_EDIT),
        }
        // A word known only at run time could name anything; only an
        // option's value may be dynamic (`-j$(nproc)`).
        // The model knows which words are text (`git commit -m "$(cat …)"`):
        // a dynamic message is not a path.
        let text_values: Vec<usize> = inv
            .reading
            .as_ref()
            .map(|r| {
                r.parsed
                    .opts
                    .iter()
                    .filter(|o| {
                        matches!(
                            o.opt.value,
                            shellgate_programs::Role::Text | shellgate_programs::Role::Pattern
                        )
                    })
                    .filter_map(|o| o.value.map(|v| v.at + 1))
                    .collect()
            })
            .unwrap_or_default();
        // bash splits (and globs) an unquoted expansion into more words,
        // which the model never read (`make -j$(echo 1 deploy)`): only
        // double-quoted ones, or a substitution printing one number.
        if inv.argv.iter().skip(1).any(may_split) {
            return Err("an unquoted expansion could split into words nobody read");
        }
        let dynamic_operand = inv.argv.iter().enumerate().any(|(i, w)| {
            w.expanded(&ctx.home).is_none()
                && !w.static_prefix(&ctx.home).0.starts_with('-')
                && !text_values.contains(&i)
        });
        if dynamic_operand {
            return Err("an operand is known only at run time");
        }
        // Every path named — operands, redirects, the working directory,
        // option values the program model knows — lies in the project, or
        // in the system temp directory where the sandbox lets the command
        // read it (always) or write it (when the temp directory is the
        // sandbox's writable one; never the home or the gate's home below
        // it, as written or resolved).
        // A read outside the project in a read root (`JAVA_HOME=/usr/lib/jvm/…
        // ./gradlew test`) is what a safe reader may do there too (§15.17
        // read roots, secrets excluded, resolved as well as written); the
        // sandbox keeps it read-only.
        let root_read = |t: &Touch| {
            !inside(&t.path)
                && reads_only(t)
                && roots().covers(ctx.fs, std::slice::from_ref(t), false, |_| false)
        };
        let mut named: Vec<String> = cc
            .touches
            .iter()
            .filter(|t| !root_read(t) && !temp_touch(t, f, inv.reading.is_some()))
            .map(|t| t.path.clone())
            .collect();
        // An option's path the model knows (`-coverprofile=/tmp/c.out`) may
        // be written: in the temp directory only where the sandbox lets it.
        let options = model_paths(inv, &ctx.home)
            .ok_or("a path an option names is known only at run time")?;
        // What lies in the temp directory is checked for secrets and
        // control files like the rest (rt18 F3: `cp x
        // /tmp/ws/.vscode/tasks.json` planted another workspace's task).
        let in_temp_dir: Vec<String> = cc
            .touches
            .iter()
            .filter(|t| temp_touch(t, f, inv.reading.is_some()))
            .map(|t| t.path.clone())
            .chain(
                options
                    .iter()
                    .filter(|(p, role)| !inside(p) && temp_option(p, *role, f))
                    .map(|(p, _)| p.clone()),
            )
            .collect();
        named.extend(
            options
                .into_iter()
                .filter(|(p, role)| inside(p) || !temp_option(p, *role, f))
                .map(|(p, _)| p),
        );
        if inv.cwd.is_none() || (named.is_empty() && cc.touches.is_empty()) {
            return Err("it names no place inside the project");
        }
        // A secret named inside a revision (`git show :.env > o`, `git show
        // HEAD~1:.env > o`, rt18 F4): what an unconfined read refuses.
        if super::safe_space::names_secret_word(inv) {
            return Err("it names a secret-looking file");
        }
        for p in &in_temp_dir {
            if secret_path(p) {
                return Err("it names a secret-looking file");
            }
            if control_path(p, SYSTEM_TEMP) || env_bin_path(p) {
                return Err("it names a file that controls git, the hosts or the environment");
            }
        }
        for p in &named {
            if !inside(p) {
                return Err("it names a path outside the project");
            }
            if secret_path(p) {
                return Err("it names a secret-looking file");
            }
            if control_path(p, &project) || env_bin_path(p) {
                return Err("it names a file that controls git, the hosts or the environment");
            }
        }
        // Where the kernel goes (`dep/../x` with `dep` a link out of the
        // project): every touch resolves inside too (§15.11).
        for t in cc
            .touches
            .iter()
            .filter(|t| !root_read(t) && !temp_touch(t, f, inv.reading.is_some()))
        {
            let ok = [&project, &session_dir].iter().any(|root| {
                crate::resolve::contained(
                    ctx.fs,
                    root,
                    &t.path,
                    &t.raw,
                    t.follow,
                    ctx.os != Os::Linux,
                )
            });
            if !ok {
                return Err("a path it names resolves outside the project");
            }
        }
    }
    // Something must have been unapproved (else an earlier layer allowed).
    if real(out).iter().all(|c| c.status != Status::Unapproved) {
        return Err("nothing is left to approve");
    }
    if call
        .lookups
        .sandbox_failed(&call.req.tool, &call.req.command, call.cwd.as_deref())
    {
        return Err("the same call failed in the sandbox before");
    }
    let profile = if build { "build" } else { "edit" };
    let argv = vec![
        offer.program.clone(),
        "--home".to_string(),
        gate,
        "sandbox".to_string(),
        "--session".to_string(),
        ctx.session.clone(),
        "--project-dir".to_string(),
        project.clone(),
        "--profile".to_string(),
        profile.to_string(),
        "--record".to_string(),
        "--".to_string(),
        "bash".to_string(),
        "-c".to_string(),
        call.req.command.clone(),
    ];
    let command = argv
        .iter()
        .map(|a| sh_quote(a))
        .collect::<Vec<_>>()
        .join(" ");
    Ok(SandboxRun {
        profile,
        project_dir: project,
        command,
        argv,
    })
}

/// An uncovered `-I` of ruby or perl (a load path: code is loaded from
/// there, so no grant covers it) whose every value is the project's own —
/// relative, never above the working directory (`ruby -Itest
/// test/x_test.rb`, minitest's way to run one file; rt17a G8). Confined,
/// that is project code run like the script itself.
fn project_load_path(inv: &shellgate_shell::analyze::Invocation, reason: &str) -> bool {
    let Some(prog) = reason
        .strip_prefix("code_option:")
        .and_then(|r| r.strip_suffix(":-I"))
    else {
        return false;
    };
    if !matches!(prog, "ruby" | "perl") {
        return false;
    }
    let mut values = Vec::new();
    let mut words = inv.argv.iter().skip(1);
    while let Some(w) = words.next() {
        let Some(t) = w.lit() else {
            return false;
        };
        if t == "-I" {
            match words.next().and_then(|v| v.lit()) {
                Some(v) => values.push(v.to_string()),
                None => return false,
            }
        } else if let Some(v) = t.strip_prefix("-I") {
            values.push(v.to_string());
        } else if t.starts_with('-') && !t.starts_with("--") && t[1..].contains('I') {
            // `-wI/tmp/x`: an `-I` inside a cluster.
            return false;
        } else if !t.starts_with('-') {
            break;
        }
    }
    !values.is_empty()
        && values.iter().all(|d| {
            !d.is_empty() && !d.starts_with(['/', '~', '-']) && !d.split('/').any(|s| s == "..")
        })
}

/// A touch the model knows writes: an output redirect, the working
/// directory (where relative writes land), an operand whose role writes.
fn known_write(t: &Touch) -> bool {
    match t.kind {
        TouchKind::RedirectWrite | TouchKind::WorkingDir => true,
        TouchKind::RedirectRead => false,
        // Not `any`: it may be a module the tool loads.
        TouchKind::Operand => matches!(t.role, Some(Role::Write | Role::ReadWrite)),
    }
}

/// The system temp directory a sandboxed command may always read.
const SYSTEM_TEMP: &str = "/tmp";

/// A touch that only reads: an input redirect, or an operand or assignment
/// value whose role (when the model knows it) is a read or a listing. An
/// assignment's value (`Any`) may be written by the program, which the
/// sandbox then stops: the run fails and the next call asks.
fn reads_only(t: &Touch) -> bool {
    use shellgate_programs::Role;
    match t.kind {
        TouchKind::RedirectRead => true,
        TouchKind::Operand => matches!(t.role, Some(Role::Read | Role::List | Role::Any)),
        TouchKind::RedirectWrite | TouchKind::WorkingDir => false,
    }
}

/// Programs that print one word: their unquoted substitution cannot
/// split into more (`make -j$(nproc)`).
const ONE_WORD: &[&str] = &["nproc", "nproc --all", "getconf _NPROCESSORS_ONLN"];

/// Whether bash could split (or glob) an expansion in `w` into other words:
/// a parameter or substitution outside double quotes, except a substitution
/// of [`ONE_WORD`]. Anything the scan cannot place counts as splitting.
fn may_split(w: &Word) -> bool {
    if !w.raw.contains(['$', '`']) {
        return false;
    }
    // Byte positions (substitution offsets are byte offsets into the raw
    // text; every character tested here is ASCII).
    let raw = w.raw.as_str();
    let b = raw.as_bytes();
    let mut i = 0;
    let mut dq = false;
    while i < b.len() {
        if let Some(s) = w.substs.iter().find(|s| s.offset == i) {
            let (open, close) = match s.kind {
                SubstKind::Command => (2, 1),
                SubstKind::Backtick => (1, 1),
            };
            let len = s.text.len();
            if raw.get(i + open..i + open + len) != Some(s.text.as_str()) {
                return true;
            }
            if !dq && !ONE_WORD.contains(&s.text.trim()) {
                return true;
            }
            i += open + len + close;
            continue;
        }
        match b[i] {
            b'\\' => {
                i += 2;
                continue;
            }
            // '…' and ANSI-C $'…' (with its \' escapes): no expansion.
            b'\'' if !dq => match closing_quote(b, i + 1, false) {
                Some(j) => {
                    i = j + 1;
                    continue;
                }
                None => return true,
            },
            b'$' if !dq && b.get(i + 1) == Some(&b'\'') => match closing_quote(b, i + 2, true) {
                Some(j) => {
                    i = j + 1;
                    continue;
                }
                None => return true,
            },
            b'"' => dq = !dq,
            // A substitution the word does not list, or any expansion
            // outside double quotes.
            b'`' => return true,
            b'$' if !dq || b.get(i + 1) == Some(&b'(') => return true,
            // Inside double quotes, expansions that still make several
            // words: `"$@"`, `"${a[@]}"`, `"${!prefix@}"`.
            b'$' => {
                if b.get(i + 1) == Some(&b'@') {
                    return true;
                }
                if b.get(i + 1) == Some(&b'{') {
                    match raw[i..].find('}') {
                        Some(end) if !raw[i..i + end].contains('@') => {}
                        _ => return true,
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    false
}

/// The index of the quote closing a single-quoted string that starts at
/// `from` (`escapes`: `\'` does not close it, as in `$'…'`).
fn closing_quote(b: &[u8], from: usize, escapes: bool) -> Option<usize> {
    let mut k = from;
    while k < b.len() {
        match b[k] {
            b'\\' if escapes => k += 2,
            b'\'' => return Some(k),
            _ => k += 1,
        }
    }
    None
}

/// A path in a project's own environment of programs (`.venv/bin`,
/// `node_modules/.bin`): a program written there may later run, outside
/// the sandbox, under the name of a known one when that directory is on
/// `PATH`. Likewise the code that environment loads by itself, which git
/// does not show (ignored) and the human never reviews (rt25a F1): the
/// installed packages (`site-packages`, `dist-packages`, `node_modules`,
/// where a `.pth` file or `sitecustomize.py` runs at every interpreter
/// start), bytecode caches (an unchecked `.pyc` runs instead of its
/// source, even after the source is edited) and a virtualenv's
/// `pyvenv.cfg` (its `home` chooses the interpreter).
fn env_bin_path(p: &str) -> bool {
    let name = paths::basename(p);
    ENV_BINS
        .iter()
        .any(|d| p.ends_with(d) || p.contains(&format!("{d}/")))
        || p.split('/').any(|seg| {
            matches!(
                seg,
                "site-packages" | "dist-packages" | "node_modules" | "__pycache__"
            )
        })
        || name.ends_with(".pyc")
        || matches!(name, "pyvenv.cfg" | "sitecustomize.py" | "usercustomize.py")
}

/// A path inside the project's `.git`, a host's control files, or a file
/// that runs code by itself when written.
fn control_path(p: &str, project: &str) -> bool {
    let rel = if paths::is_within(p, project) && p.len() > project.len() {
        &p[project.len()..]
    } else {
        p
    };
    rel.split('/').any(|seg| CONTROL_NAMES.contains(&seg))
}

#[cfg(test)]
mod tests {
    use super::sh_quote;

    #[test]
    fn quoting() {
        assert_eq!(sh_quote("/usr/bin/shellgate"), "/usr/bin/shellgate");
        assert_eq!(sh_quote("go test ./..."), "'go test ./...'");
        assert_eq!(sh_quote("it's"), r"'it'\''s'");
        assert_eq!(sh_quote(""), "''");
        assert_eq!(sh_quote("$(id)"), "'$(id)'");
    }
}
