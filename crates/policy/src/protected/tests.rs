use super::*;
use crate::fs::OsFs;
use std::fs;
use std::os::unix::fs::symlink;

#[test]
fn sets() {
    let p = Protected::new("/h/.shellgate", "/h", &[], &[], &OsFs);
    assert!(p.write_protected("/h/.shellgate/config/policy.toml"));
    assert!(p.write_protected("/h/.shellgate/notes.txt"));
    assert!(!p.write_protected("/h/.shellgate/sessions/s1/x"));
    assert!(p.read_protected("/h/.shellgate/config/tool-approvals.json"));
    assert!(!p.read_protected("/h/.shellgate/config/policy.toml"));
    assert!(p.read_protected("/h/.shellgate/secret.txt"));
    assert!(!p.read_protected("/h/.shellgate/sessions/s1/secret.txt"));
    assert!(p.write_protected("/h/repos/p/.claude/settings.local.json"));
    assert!(p.write_protected("/h/.codex/config.toml"));
    assert!(!p.write_protected("/h/.claude/notes.md"));
}

#[test]
fn host_control_files() {
    for path in [
        "/h/.claude.json",
        "/p/.mcp.json",
        "/p/.claude/settings.json",
        "/p/.claude/settings.local.json",
        "/p/.claude/hooks/pre.sh",
        "/p/.claude/hooks",
        "/p/.claude/commands/deploy.md",
        "/p/.gemini/settings.json",
        "/h/.gemini/trustedFolders.json",
        "/p/.gemini/commands/x.toml",
        "/p/.codex/hooks.json",
        "/p/.codex",
    ] {
        assert!(host_control(path), "{path}");
    }
    for path in [
        "/p/.claude/notes.md",
        "/p/.claude/projects/x.jsonl",
        "/p/.claude",
        "/p/.gemini/tmp/x",
        "/p/.gemini",
        "/p/claude.json",
        "/p/src/settings.json",
    ] {
        assert!(!host_control(path), "{path}");
    }
    let p = Protected::new("/h/.shellgate", "/h", &[], &[], &OsFs).case_insensitive(true);
    assert!(p.write_protected("/P/.Claude/Settings.json"));
    assert!(p.write_protected("/H/.SHELLGATE/config/x"));
    let p = Protected::new("/h/.shellgate", "/h", &[], &[], &OsFs);
    assert!(!p.write_protected("/P/.Claude/Settings.json"));
}

#[test]
fn ancestors_of_protected_locations() {
    let p = Protected::new("/h/.shellgate", "/h", &[], &[], &OsFs);
    for path in [
        "/p/.claude",
        "/p/x/.gemini",
        "/p/.codex",
        "/h/.shellgate",
        "/h",
        "/",
    ] {
        assert!(p.is_protected_ancestor(path), "{path}");
    }
    for path in ["/p/src", "/p/claude", "/h/.shellgate/sessions/s1"] {
        assert!(!p.is_protected_ancestor(path), "{path}");
    }
}

#[test]
fn protected_locations_that_resolve_elsewhere() {
    let t = tempfile::tempdir().unwrap();
    let r = fs::canonicalize(t.path()).unwrap();
    let r = r.to_str().unwrap();
    let (h, proj) = (format!("{r}/h"), format!("{r}/h/p"));
    fs::create_dir_all(format!("{proj}/cfg")).unwrap();
    fs::create_dir_all(format!("{r}/gatedata/config")).unwrap();
    symlink(format!("{proj}/cfg"), format!("{proj}/.claude")).unwrap();
    symlink(format!("{r}/gatedata"), format!("{h}/.shellgate")).unwrap();
    let p = Protected::new(&format!("{h}/.shellgate"), &h, &[], &[], &OsFs)
        .settings_dirs([proj.clone()]);
    let write = |path: &str| {
        let t = Touch::new(path, TouchKind::RedirectWrite, Scope::Exact);
        violation(&p, &[t], Behaviour::default())
    };
    assert!(write(&format!("{proj}/cfg/settings.json")).is_some());
    assert!(write(&format!("{proj}/cfg/notes.md")).is_none());
    assert!(write(&format!("{r}/gatedata/config/policy.toml")).is_some());
    assert!(write(&format!("{proj}/other.txt")).is_none());
    // Reading the approvals store through the gate's real directory.
    let read = Touch::new(
        format!("{r}/gatedata/config/tool-approvals.json"),
        TouchKind::Operand,
        Scope::Exact,
    );
    assert!(violation(
        &p,
        &[read],
        Behaviour {
            reader: true,
            ..Default::default()
        }
    )
    .is_some());
}

#[test]
fn hook_commands() {
    let t = tempfile::tempdir().unwrap();
    let r = fs::canonicalize(t.path()).unwrap();
    let r = r.to_str().unwrap();
    let (h, proj) = (format!("{r}/h"), format!("{r}/h/p"));
    fs::create_dir_all(format!("{proj}/.claude")).unwrap();
    fs::create_dir_all(format!("{proj}/.gemini")).unwrap();
    fs::create_dir_all(format!("{h}/.codex")).unwrap();
    fs::write(
        format!("{proj}/.claude/settings.local.json"),
        r#"{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"bash ${CLAUDE_PROJECT_DIR}/ci/stop.sh && node tools/x.js"}]}]},"apiKeyHelper":"~/bin/key.sh"}"#,
    )
    .unwrap();
    fs::write(
        format!("{proj}/.gemini/settings.json"),
        "// comment\n{\"hooks\": {\"BeforeTool\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"./scripts/g.sh\" /* c */}]}]}}",
    )
    .unwrap();
    fs::write(
        format!("{h}/.codex/hooks.json"),
        r#"{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"/usr/local/bin/shellgate hook codex"}]}]}}"#,
    )
    .unwrap();
    fs::write(
        format!("{proj}/.mcp.json"),
        r#"{"mcpServers":{"local":{"command":"node","args":["./mcp/server.js","--port","1"]}}}"#,
    )
    .unwrap();
    let p = Protected::new(&format!("{h}/.shellgate"), &h, &[], &[], &OsFs)
        .settings_dirs([proj.clone()]);
    for f in [
        format!("{proj}/ci/stop.sh"),
        format!("{proj}/tools/x.js"),
        format!("{h}/bin/key.sh"),
        format!("{proj}/scripts/g.sh"),
        "/usr/local/bin/shellgate".to_string(),
        format!("{proj}/mcp/server.js"),
    ] {
        assert!(p.write_protected(&f), "{f}");
    }
    assert!(!p.write_protected(&format!("{proj}/src/main.rs")));
    // Unparseable settings name nothing (the host cannot use them either).
    fs::write(format!("{proj}/.claude/settings.local.json"), "{not json").unwrap();
    let p = Protected::new(&format!("{h}/.shellgate"), &h, &[], &[], &OsFs)
        .settings_dirs([proj.clone()]);
    assert!(!p.write_protected(&format!("{proj}/ci/stop.sh")));
}

#[test]
fn creations() {
    let t = tempfile::tempdir().unwrap();
    let r = fs::canonicalize(t.path()).unwrap();
    let r = r.to_str().unwrap();
    let (h, proj) = (format!("{r}/h"), format!("{r}/h/p"));
    fs::create_dir_all(format!("{proj}/tpl/.claude")).unwrap();
    fs::write(format!("{proj}/tpl/.claude/settings.json"), "{}").unwrap();
    fs::create_dir_all(format!("{proj}/plain/src")).unwrap();
    fs::create_dir_all(format!("{proj}/hooks/.git/hooks")).unwrap();
    fs::write(format!("{proj}/hooks/.git/hooks/pre-commit"), "x").unwrap();
    let p = Protected::new(&format!("{h}/.shellgate"), &h, &[], &[], &OsFs)
        .settings_dirs([proj.clone()]);
    let tpl = format!("{proj}/tpl");
    assert_eq!(
        p.creates_protected(Some(&tpl), &proj, CreateKind::Tree),
        Verdict::Protected(format!("{proj}/.claude"))
    );
    assert_eq!(
        p.creates_protected(Some(&format!("{proj}/plain")), &proj, CreateKind::Tree),
        Verdict::Clear
    );
    assert_eq!(
        p.creates_protected(Some(&format!("{proj}/hooks")), &proj, CreateKind::Tree),
        Verdict::GitInternal(format!("{proj}/.git"))
    );
    assert!(matches!(
        p.creates_protected(Some(&format!("{proj}/nosuch")), &proj, CreateKind::Tree),
        Verdict::Unknown(_)
    ));
    assert!(matches!(
        p.creates_protected(None, &proj, CreateKind::Archive),
        Verdict::Unknown(_)
    ));
    assert_eq!(
        p.creates_protected(None, &format!("{proj}/.claude"), CreateKind::Name),
        Verdict::Protected(format!("{proj}/.claude"))
    );
    assert_eq!(
        p.creates_protected(None, &format!("{proj}/notes"), CreateKind::Name),
        Verdict::Clear
    );
    assert!(p.settings_dir(&proj));
    assert!(p.settings_dir(&h));
    assert!(p.settings_dir("/"));
    assert!(!p.settings_dir(&format!("{proj}/build")));
    assert!(p.settings_dir(&format!("{proj}/x/.claude")));
}

#[test]
fn the_service_socket_is_named_in_any_spelling() {
    let p = Protected::new("/h/.shellgate", "/h", &[], &[], &crate::fs::OsFs);
    for named in [
        "socat - UNIX-CONNECT:/h/.shellgate/state/serve.sock",
        "socat - unix-connect:$HOME/.shellgate/state/serve.sock",
        "socat - UNIX:${HOME}/.shellgate//state/./serve.sock",
        "nc -U ~/'.shell'\"gate\"/state/ser\\ve.sock",
        "python3 -c \"import os,socket; socket.socket(1).connect(os.path.join(os.environ['HOME'], '.shellgate', 'state', 'serve.sock'))\"",
        "node -e 'require(\"net\").connect(process.env.SHELLGATE_HOME + \"/state/serve.sock\")'",
    ] {
        assert_eq!(
            p.names_service_socket(named).as_deref(),
            Some("/h/.shellgate/state/serve.sock"),
            "{named}"
        );
    }
    for other in [
        "git status",
        "nc -U /run/docker.sock",
        "grep -r serve.sock src/",
        "ls ~/.shellgate/sessions",
    ] {
        assert_eq!(p.names_service_socket(other), None, "{other}");
    }
}
