//! `shellgate doctor [--host H]` (SPEC §16): for each installed host —
//! version, hook present and trusted, matcher covering the host's current
//! tool names, the fail-closed setting honoured, the hook's timeout above
//! its own deadline, node where it matters — and the gate home (policy,
//! approvals, state readable and writable). Prints what is wrong with the
//! exact fix for each problem; exit 1 when anything is wrong.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use anyhow::Result;
use clap::Args;
use serde_json::{json, Map, Value};

use super::codex_trust::{self, Config as CodexConfig};
use super::hostinfo;
use super::install::{self, is_ours};
use crate::edge::{self, Homes};
use crate::hooks::{self, failsafe, Host};

#[derive(Args, Debug)]
pub struct DoctorArgs {
    /// Check only this host: claude-code, gemini or codex.
    #[arg(long, value_enum)]
    pub host: Option<Host>,
    /// Do not start `codex app-server` to ask Codex itself whether it
    /// trusts the hook.
    #[arg(long)]
    pub no_host_query: bool,
}

/// How long `codex app-server` may take to list the hooks.
const APP_SERVER_TIMEOUT: Duration = Duration::from_secs(20);

struct Report {
    out: String,
    problems: usize,
}

impl Report {
    fn section(&mut self, title: &str) {
        self.out.push_str(title);
        self.out.push('\n');
    }
    fn ok(&mut self, what: &str) {
        self.out.push_str(&format!("  ok: {what}\n"));
    }
    fn note(&mut self, what: &str) {
        self.out.push_str(&format!("  note: {what}\n"));
    }
    fn problem(&mut self, what: &str, fix: &str) {
        self.problems += 1;
        self.out.push_str(&format!("  PROBLEM: {what}\n"));
        let mut first = true;
        for line in fix.lines() {
            if first {
                self.out.push_str(&format!("    fix: {line}\n"));
                first = false;
            } else {
                self.out.push_str(&format!("         {line}\n"));
            }
        }
    }
}

pub fn run(homes: &Homes, a: &DoctorArgs) -> Result<u8> {
    let mut r = Report {
        out: String::new(),
        problems: 0,
    };
    check_gate_home(homes, &mut r);
    let hosts: Vec<Host> = match a.host {
        Some(h) => vec![h],
        None => vec![Host::ClaudeCode, Host::Codex, Host::Gemini],
    };
    let mut installed_any = false;
    for host in hosts {
        installed_any |= check_host(homes, host, a, &mut r)?;
    }
    if !installed_any && a.host.is_none() {
        r.problem(
            "no host has the shellgate hook installed: nothing is gated",
            "shellgate install claude-code   (or: shellgate install codex, shellgate install gemini)",
        );
    }
    if r.problems == 0 {
        r.out.push_str("No problems found.\n");
    } else {
        r.out.push_str(&format!(
            "{} problem{} found.\n",
            r.problems,
            if r.problems == 1 { "" } else { "s" }
        ));
    }
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(r.out.as_bytes());
    let _ = stdout.flush();
    Ok(if r.problems == 0 { 0 } else { 1 })
}

fn q(p: &Path) -> String {
    hooks::sq(&p.display().to_string())
}

/// `'<path>.broken'`: where a fix moves a damaged file aside.
fn broken(p: &Path) -> String {
    hooks::sq(&format!("{}.broken", p.display()))
}

// ----- the gate home ---------------------------------------------------------

fn check_gate_home(homes: &Homes, r: &mut Report) {
    let gate = &homes.gate;
    r.section(&format!("gate home {}", gate.display()));
    let mut bad = false;
    if gate.exists() && !gate.is_dir() {
        r.problem(
            &format!(
                "{} is not a directory: every hook call is blocked",
                gate.display()
            ),
            &format!("mv {} {}", q(gate), broken(gate)),
        );
        return;
    }
    if let Err(e) = edge::load_policy(homes) {
        bad = true;
        r.problem(
            &format!("the policy cannot be loaded, so every hook call is blocked: {e:#}"),
            &format!(
                "correct {} (or move it aside: mv {} {})",
                homes.policy_path().display(),
                q(&homes.policy_path()),
                broken(&homes.policy_path())
            ),
        );
    }
    let store = homes.store_path();
    match std::fs::read(&store) {
        Ok(bytes) => {
            if serde_json::from_slice::<Value>(&bytes).is_err() {
                bad = true;
                r.problem(
                    &format!(
                        "{} is not valid JSON: the next call moves it aside and its grants are not used",
                        store.display()
                    ),
                    &format!(
                        "repair it from {}.invalid or a backup, or remove it: rm {}",
                        store.display(),
                        q(&store)
                    ),
                );
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => {
            bad = true;
            r.problem(
                &format!("cannot read {}: {e}", store.display()),
                &format!("make it readable by this user: chmod u+rw {}", q(&store)),
            );
        }
    }
    let state = gate.join("state");
    if state.exists() && !state.is_dir() {
        bad = true;
        r.problem(
            &format!(
                "{} is not a directory: the state database cannot be opened, so every hook call is blocked",
                state.display()
            ),
            &format!("mv {} {}", q(&state), broken(&state)),
        );
    } else {
        let db = homes.db_path();
        if db.exists() {
            if let Err(e) = shellgate_store::state::StateDb::open(&db) {
                bad = true;
                r.problem(
                    &format!(
                        "the state database cannot be opened, so every hook call is blocked: {e}"
                    ),
                    &format!(
                        "mv {} {}   (sessions and the audit log start afresh)",
                        q(&db),
                        broken(&db)
                    ),
                );
            }
        }
        let dir = if state.is_dir() {
            state.clone()
        } else if gate.is_dir() {
            gate.clone()
        } else {
            gate.parent().map(Path::to_path_buf).unwrap_or_default()
        };
        if dir.is_dir() && !writable(&dir) {
            bad = true;
            r.problem(
                &format!(
                    "{} is not writable: the state database cannot be written, so every hook call is blocked",
                    dir.display()
                ),
                &format!("chmod u+rwx {}", q(&dir)),
            );
        }
    }
    if !bad {
        r.ok("policy, approvals and state are readable and writable");
    }
}

fn writable(dir: &Path) -> bool {
    let probe = dir.join(format!(".shellgate-doctor-{}", std::process::id()));
    let ok = std::fs::write(&probe, b"").is_ok();
    let _ = std::fs::remove_file(&probe);
    ok
}

// ----- hosts -------------------------------------------------------------------

/// One configuration file that holds our hook.
struct Installed {
    path: std::path::PathBuf,
    project: bool,
    doc: Map<String, Value>,
}

fn install_cmd(host: Host, project: bool) -> String {
    if project {
        format!(
            "shellgate install {} --project   (in the project directory)",
            host.name()
        )
    } else {
        format!("shellgate install {}", host.name())
    }
}

fn ours_in(doc: &Map<String, Value>, host: Host, event: &str) -> Vec<(Value, Value)> {
    let mut out = Vec::new();
    let Some(groups) = doc
        .get("hooks")
        .and_then(|h| h.get(event))
        .and_then(Value::as_array)
    else {
        return out;
    };
    for g in groups {
        if let Some(hs) = g.get("hooks").and_then(Value::as_array) {
            for h in hs.iter().filter(|h| is_ours(h, host)) {
                out.push((g.clone(), h.clone()));
            }
        }
    }
    out
}

/// Check one host; returns whether its hook is installed anywhere.
fn check_host(homes: &Homes, host: Host, a: &DoctorArgs, r: &mut Report) -> Result<bool> {
    let mut installed = Vec::new();
    for project in [false, true] {
        let Ok(path) = install::settings_path(homes, host, project) else {
            continue;
        };
        if project && install::settings_path(homes, host, false).ok().as_ref() == Some(&path) {
            continue;
        }
        match install::read_doc(&path) {
            Ok((Some(_), doc)) => {
                if install::events(host)
                    .iter()
                    .any(|e| !ours_in(&doc, host, e).is_empty())
                {
                    installed.push(Installed { path, project, doc });
                }
            }
            Ok((None, _)) => {}
            Err(e) => {
                r.section(host.name());
                r.problem(
                    &format!("{e:#}"),
                    &format!(
                        "repair {}, then run: {}",
                        path.display(),
                        install_cmd(host, project)
                    ),
                );
                return Ok(true);
            }
        }
    }
    let found = hostinfo::host(host);
    let title = match &found {
        Some(f) => format!(
            "{} {} ({})",
            host.name(),
            f.version
                .map(|v| v.to_string())
                .unwrap_or_else(|| format!("version unknown: {:?}", f.version_text)),
            f.path.display()
        ),
        None => format!(
            "{} (`{}` not found on PATH)",
            host.name(),
            hostinfo::binary(host)
        ),
    };
    if installed.is_empty() {
        if a.host.is_some() {
            r.section(&title);
            r.problem(
                &format!(
                    "the shellgate hook is not installed for {}: nothing is gated",
                    host.name()
                ),
                &install_cmd(host, false),
            );
            return Ok(true);
        }
        if found.is_some() {
            r.section(&title);
            r.note(&format!(
                "{} is on PATH but has no shellgate hook (run `{}` to gate it)",
                host.name(),
                install_cmd(host, false)
            ));
        }
        return Ok(false);
    }
    r.section(&title);
    if found.is_none() {
        r.note("the host is not on PATH here, so its version is not checked");
    }
    for inst in &installed {
        check_config(homes, host, inst, r);
    }
    match host {
        Host::ClaudeCode => check_claude_version(found.as_ref(), r),
        Host::Gemini => check_node_for_gemini(found.is_some(), r),
        Host::Codex => {
            if let (Some(f), false) = (&found, a.no_host_query) {
                for inst in &installed {
                    check_codex_app_server(homes, &f.path, inst, r);
                }
            }
        }
    }
    Ok(true)
}

fn check_config(homes: &Homes, host: Host, inst: &Installed, r: &mut Report) {
    let fix = install_cmd(host, inst.project);
    let gated = install::event_name(host);
    let ours = ours_in(&inst.doc, host, gated);
    r.note(&format!("hook in {}", inst.path.display()));
    if ours.is_empty() {
        r.problem(
            &format!(
                "{} has no shellgate {gated} hook: calls are not gated",
                inst.path.display()
            ),
            &fix,
        );
        return;
    }
    if ours.len() > 1 {
        r.problem(
            &format!(
                "{} holds {} shellgate {gated} hooks; the host runs each of them",
                inst.path.display(),
                ours.len()
            ),
            &fix,
        );
    }
    let mut fine = true;
    for (group, handler) in &ours {
        let command = handler.get("command").and_then(Value::as_str).unwrap_or("");
        // The program the command starts.
        let program = install::words(command)
            .into_iter()
            .next()
            .unwrap_or_default();
        if !Path::new(&program).is_file() {
            fine = false;
            r.problem(
                &format!(
                    "the hook command starts {program:?}, which does not exist: every call fails"
                ),
                &format!("{fix}   (with the shellgate binary you use now)"),
            );
        }
        // The matcher names every tool the host uses today.
        let matcher = group.get("matcher").and_then(Value::as_str).unwrap_or("");
        let named: Vec<&str> = matcher.split('|').map(str::trim).collect();
        let missing: Vec<&str> = install::gated_tools(host)
            .into_iter()
            .filter(|t| !(matcher == "*" || named.contains(t)))
            .collect();
        if !missing.is_empty() {
            fine = false;
            r.problem(
                &format!(
                    "the hook's matcher {matcher:?} misses {}: those tools run ungated",
                    missing.join(", ")
                ),
                &fix,
            );
        }
        // The host's timeout must leave room for the hook's own deadline:
        // the supervisor's, plus the wait for the approval service.
        let words = install::words(command);
        let wait = words
            .windows(2)
            .find(|w| w[0] == "--wait")
            .and_then(|w| w[1].parse::<u64>().ok())
            .or_else(|| {
                words
                    .iter()
                    .find_map(|w| w.strip_prefix("--wait=")?.parse::<u64>().ok())
            })
            .unwrap_or(hooks::ask::DEFAULT_WAIT_SECS);
        let deadline = failsafe::DEADLINE.as_secs() + wait;
        let timeout_secs = handler.get("timeout").and_then(Value::as_u64).map(|t| {
            if host == Host::Gemini {
                t / 1000
            } else {
                t
            }
        });
        if let Some(t) = timeout_secs.filter(|t| *t <= deadline) {
            fine = false;
            r.problem(
                &format!(
                    "the hook's timeout ({t} s) is not above its own deadline ({deadline} s: its --wait of {wait} s for the approval service + {} s): the host may give up first and run the call",
                    failsafe::DEADLINE.as_secs()
                ),
                &fix,
            );
        }
        if host == Host::ClaudeCode
            && handler.get("onFailure").and_then(Value::as_str) != Some("block")
        {
            fine = false;
            r.problem(
                "the hook has no \"onFailure\": \"block\": if it cannot run or times out, Claude Code runs the call",
                &fix,
            );
        }
    }
    if host == Host::ClaudeCode && ours_in(&inst.doc, host, "PostToolUse").is_empty() {
        fine = false;
        r.problem(
            "no shellgate PostToolUse hook: calls a human approves in Claude Code's dialog are not recorded in the audit log",
            &fix,
        );
    }
    if host == Host::Codex && !check_codex_trust(homes, inst, r) {
        fine = false;
    }
    if fine {
        r.ok("hook present, matcher covers the current tool names, fail-closed settings in place");
    }
}

fn check_codex_trust(homes: &Homes, inst: &Installed, r: &mut Report) -> bool {
    let fix = install_cmd(Host::Codex, inst.project);
    let cfg_path = install::codex_config_path(homes);
    let config = match CodexConfig::read(&cfg_path) {
        Ok(c) => c,
        Err(e) => {
            r.problem(
                &format!("{e:#}"),
                &format!("repair {}, then run: {fix}", cfg_path.display()),
            );
            return false;
        }
    };
    let entries = codex_trust::entries(&inst.path.display().to_string(), &inst.doc, &|h| {
        is_ours(h, Host::Codex)
    });
    let mut fine = true;
    for e in entries.iter().filter(|e| e.ours) {
        match config.trusted_hash(&e.key) {
            Some(h) if h == e.hash => {}
            Some(h) => {
                fine = false;
                r.problem(
                    &format!(
                        "Codex sees the shellgate hook as modified (trusted_hash {h} in {} is not its current hash {}): Codex skips it, so the gate never runs",
                        cfg_path.display(),
                        e.hash
                    ),
                    &format!("{fix}   (or trust it again in Codex's /hooks screen)"),
                );
            }
            None => {
                fine = false;
                r.problem(
                    &format!(
                        "Codex does not trust the shellgate hook ({} has no [hooks.state.\"{}\"]): Codex skips it, so the gate never runs",
                        cfg_path.display(),
                        e.key
                    ),
                    &format!("{fix}   (or trust it in Codex's /hooks screen)"),
                );
            }
        }
    }
    if inst.project {
        if let Some(dir) = inst.path.parent().and_then(Path::parent) {
            let dir = dir.display().to_string();
            if !config.project_trusted(&dir) {
                r.note(&format!(
                    "Codex lists a project's hooks only in a trusted project; {dir} is not marked trusted in {} (it may be trusted through its git root): if Codex's /hooks does not list the shellgate hook, start `codex` in {dir} and trust it, or add [projects.\"{dir}\"] trust_level = \"trusted\"",
                    cfg_path.display()
                ));
            }
        }
    }
    fine
}

/// Ask Codex itself (`codex app-server` → `hooks/list`) how it sees the hook.
fn check_codex_app_server(homes: &Homes, codex: &Path, inst: &Installed, r: &mut Report) {
    let cwd = if inst.project {
        inst.path
            .parent()
            .and_then(Path::parent)
            .map(Path::to_path_buf)
            .unwrap_or_else(|| Path::new(&homes.user).to_path_buf())
    } else {
        Path::new(&homes.user).to_path_buf()
    };
    let listed = match codex_hooks_list(codex, &cwd) {
        Ok(v) => v,
        Err(e) => {
            r.note(&format!("could not ask Codex how it sees the hook: {e}"));
            return;
        }
    };
    let prefix = format!("{}:", inst.path.display());
    let hooks: Vec<&Value> = listed
        .pointer("/result/data")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|d| d.get("hooks").and_then(Value::as_array))
        .flatten()
        .filter(|h| {
            h.get("key")
                .and_then(Value::as_str)
                .is_some_and(|k| k.starts_with(&prefix))
                && h.get("command")
                    .and_then(Value::as_str)
                    .is_some_and(|c| is_ours(&json!({"command": c}), Host::Codex))
        })
        .collect();
    if hooks.is_empty() {
        r.problem(
            &format!(
                "Codex (app-server hooks/list in {}) does not list the shellgate hook of {}",
                cwd.display(),
                inst.path.display()
            ),
            &format!(
                "{}{}",
                install_cmd(Host::Codex, inst.project),
                if inst.project {
                    "; and trust the project in Codex (start `codex` there and answer yes)"
                } else {
                    ""
                }
            ),
        );
        return;
    }
    for h in hooks {
        let status = h.get("trustStatus").and_then(Value::as_str).unwrap_or("?");
        let key = h.get("key").and_then(Value::as_str).unwrap_or("?");
        if status == "trusted" || status == "managed" {
            r.ok(&format!("Codex itself reports the hook {key} as {status}"));
        } else {
            r.problem(
                &format!("Codex itself reports the hook {key} as {status}: it skips it"),
                &install_cmd(Host::Codex, inst.project),
            );
        }
    }
}

/// `codex app-server` over stdio: initialize, initialized, hooks/list.
pub fn codex_hooks_list(codex: &Path, cwd: &Path) -> std::result::Result<Value, String> {
    let mut child = Command::new(codex)
        .arg("app-server")
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start codex app-server: {e}"))?;
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let msgs = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
               "params": {"clientInfo": {"name": "shellgate-doctor", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "hooks/list",
               "params": {"cwds": [cwd.display().to_string()]}}),
    ];
    for m in msgs {
        if writeln!(stdin, "{m}").is_err() {
            break;
        }
    }
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().take(10_000) {
            let Ok(line) = line else { break };
            if let Ok(v) = serde_json::from_str::<Value>(&line) {
                if v.get("id") == Some(&json!(2)) {
                    let _ = tx.send(v);
                    break;
                }
            }
        }
    });
    let got = rx.recv_timeout(APP_SERVER_TIMEOUT);
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    got.map_err(|_| {
        format!(
            "no hooks/list answer within {} s",
            APP_SERVER_TIMEOUT.as_secs()
        )
    })
}

fn check_claude_version(found: Option<&hostinfo::Found>, r: &mut Report) {
    let Some(f) = found else { return };
    let node = hostinfo::node();
    match f.version {
        Some(v) => match hostinfo::claude_version_problem(v) {
            Some(problem) => r.problem(&problem, &hostinfo::claude_upgrade_fix(node)),
            None => r.ok(&format!(
                "Claude Code {v} honours \"onFailure\": \"block\""
            )),
        },
        None => r.problem(
            &format!(
                "cannot tell the Claude Code version ({:?}), so whether it honours \"onFailure\": \"block\" is unknown",
                f.version_text
            ),
            &hostinfo::claude_upgrade_fix(node),
        ),
    }
    if let Some(n) = node {
        r.note(&format!(
            "node {n} (Claude Code ≥ {} installs by default only with node ≥ {})",
            hostinfo::CLAUDE_ON_FAILURE_SINCE,
            hostinfo::CLAUDE_NODE
        ));
    }
}

fn check_node_for_gemini(found: bool, r: &mut Report) {
    if !found {
        return;
    }
    match hostinfo::node() {
        Some(n) if n < hostinfo::GEMINI_NODE => r.problem(
            &format!(
                "node {n} is older than {}, which Gemini CLI needs",
                hostinfo::GEMINI_NODE
            ),
            "install node 20 or later, then: npm install -g @google/gemini-cli@latest",
        ),
        Some(n) => r.note(&format!("node {n}")),
        None => r.note("node not found on PATH"),
    }
}
