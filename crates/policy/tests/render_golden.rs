//! Golden files for the renderers (SPEC §7.5) and Block Kit validation of
//! the Slack payloads.
//!
//! Every renderer (terminal, Slack, Discord, and their resolved variants)
//! is run on four prompts: a simple one, a compound one (bullets), a
//! complex one (Once/Deny only) and one whose cwd is shallow (no "Always
//! here"). The outputs are compared with `tests/golden/<name>`; run with
//! `SHELLGATE_UPDATE_GOLDEN=1` to rewrite them after an intended change.

use std::path::PathBuf;

use serde_json::Value;
use shellgate_policy::prompt::{self, Prompt};
use shellgate_policy::render::{self, PromptView, Resolution};

fn s(v: &[&str]) -> Vec<String> {
    v.iter().map(|x| x.to_string()).collect()
}

const ALL: [&str; 5] = [
    "approve_once",
    "approve_session",
    "approve_always",
    "approve_everywhere",
    "deny",
];

struct Case {
    name: &'static str,
    view: PromptView,
    /// The answer shown by the resolved variants.
    resolution: Resolution,
}

fn view(display: &str, options: &[&str], p: Prompt) -> PromptView {
    PromptView {
        tool: "shell_execute".into(),
        display: display.into(),
        options: s(options),
        prompt: p,
        call_id: "call-7f3a9c".into(),
        requester: "U024BE7LH".into(),
    }
}

fn cases() -> Vec<Case> {
    let app = "/home/u/repos/app";
    let simple_verbs = s(&["make build"]);
    let compound_verbs = s(&["git add", "git commit", "git push origin main"]);
    let shallow_verbs = s(&["make install"]);
    vec![
        Case {
            name: "simple",
            view: view("make build", &ALL, prompt::build(&simple_verbs, app, false)),
            resolution: Resolution::new("approve_always", &simple_verbs, app),
        },
        Case {
            name: "compound",
            // Backticks in an interpolated value, and Slack/Discord
            // special characters.
            view: view(
                "git add . && git commit -m 'fix `render` <b> & *bold*' && git push origin main",
                &ALL,
                prompt::build(&compound_verbs, app, false),
            ),
            resolution: Resolution::new("approve_session", &compound_verbs, app),
        },
        Case {
            name: "complex",
            view: view(
                "eval \"$DEPLOY_CMD\"",
                &["approve_once", "deny"],
                prompt::build(&[], app, true),
            ),
            resolution: Resolution::new("deny", &[], app),
        },
        Case {
            name: "shallow",
            view: view(
                "make install",
                &[
                    "approve_once",
                    "approve_session",
                    "approve_everywhere",
                    "deny",
                ],
                prompt::build(&shallow_verbs, "/etc", false),
            ),
            resolution: Resolution::new("approve_everywhere", &shallow_verbs, "/etc"),
        },
    ]
}

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("golden")
}

fn check_golden(file: &str, actual: &str) {
    let path = golden_dir().join(file);
    if std::env::var_os("SHELLGATE_UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(golden_dir()).expect("mkdir golden");
        std::fs::write(&path, actual).expect("write golden");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "missing golden file {} ({e}); run with SHELLGATE_UPDATE_GOLDEN=1 to create it",
            path.display()
        )
    });
    if expected != actual {
        panic!(
            "golden file {} differs (run with SHELLGATE_UPDATE_GOLDEN=1 to accept)\n--- expected\n{expected}\n--- actual\n{actual}",
            path.display()
        );
    }
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).expect("json") + "\n"
}

#[test]
fn terminal_goldens() {
    for c in cases() {
        check_golden(
            &format!("terminal_{}.txt", c.name),
            &render::terminal(&c.view),
        );
        check_golden(
            &format!("terminal_{}_resolved.txt", c.name),
            &render::terminal_resolved(&c.view, &c.resolution),
        );
    }
}

#[test]
fn slack_goldens() {
    for c in cases() {
        let msg = render::slack(&c.view).expect("slack");
        check_golden(&format!("slack_{}.json", c.name), &pretty(&msg));
        check_golden(
            &format!("slack_{}_resolved.json", c.name),
            &pretty(&render::slack_resolved(&c.view, &c.resolution)),
        );
    }
}

#[test]
fn discord_goldens() {
    for c in cases() {
        let msg = render::discord(&c.view).expect("discord");
        check_golden(&format!("discord_{}.json", c.name), &pretty(&msg));
        check_golden(
            &format!("discord_{}_resolved.json", c.name),
            &pretty(&render::discord_resolved(&c.view, &c.resolution)),
        );
    }
}

// ----- Block Kit validation -------------------------------------------------

/// Check a Slack message against the Block Kit limits this renderer must
/// respect. Returns every violation found.
fn block_kit_errors(msg: &Value) -> Vec<String> {
    let mut errs = Vec::new();
    let mut err = |e: String| errs.push(e);
    let Some(blocks) = msg.get("blocks").and_then(Value::as_array) else {
        return vec!["no blocks array".into()];
    };
    if blocks.is_empty() || blocks.len() > 50 {
        err(format!("{} blocks (1..=50 allowed)", blocks.len()));
    }
    match msg.get("text").and_then(Value::as_str) {
        Some(t) if !t.is_empty() && t.chars().count() <= 40_000 => {}
        _ => err("missing or oversized fallback text".into()),
    }
    let text_obj = |v: &Value, max: usize, what: &str, errs: &mut Vec<String>| {
        let ty = v.get("type").and_then(Value::as_str);
        if !matches!(ty, Some("plain_text") | Some("mrkdwn")) {
            errs.push(format!("{what}: bad text object type {ty:?}"));
        }
        match v.get("text").and_then(Value::as_str) {
            Some(t) if !t.is_empty() && t.chars().count() <= max => {}
            Some(t) => errs.push(format!("{what}: text of {} chars", t.chars().count())),
            None => errs.push(format!("{what}: no text")),
        }
        if ty == Some("mrkdwn") {
            if let Some(t) = v.get("text").and_then(Value::as_str) {
                // Unescaped angle brackets would be mentions or links.
                if t.contains('<') || t.contains('>') {
                    errs.push(format!("{what}: unescaped < or > in mrkdwn"));
                }
            }
        }
    };
    let mut block_ids = Vec::new();
    let mut action_ids = Vec::new();
    let mut action_blocks = 0;
    for (i, b) in blocks.iter().enumerate() {
        if let Some(id) = b.get("block_id").and_then(Value::as_str) {
            if id.is_empty() || id.chars().count() > 255 || block_ids.contains(&id) {
                errs.push(format!("block {i}: bad or duplicate block_id {id}"));
            }
            block_ids.push(id);
        }
        match b.get("type").and_then(Value::as_str) {
            Some("section") => match b.get("text") {
                Some(t) => text_obj(t, 3000, &format!("block {i} section"), &mut errs),
                None => errs.push(format!("block {i}: section without text")),
            },
            Some("context") => {
                let els = b.get("elements").and_then(Value::as_array);
                match els {
                    Some(els) if !els.is_empty() && els.len() <= 10 => {
                        for e in els {
                            text_obj(e, 3000, &format!("block {i} context"), &mut errs);
                        }
                    }
                    _ => errs.push(format!("block {i}: context needs 1..=10 elements")),
                }
            }
            Some("actions") => {
                action_blocks += 1;
                let Some(els) = b.get("elements").and_then(Value::as_array) else {
                    errs.push(format!("block {i}: actions without elements"));
                    continue;
                };
                if els.is_empty() || els.len() > 5 {
                    errs.push(format!(
                        "block {i}: {} buttons (1..=5 per actions block)",
                        els.len()
                    ));
                }
                for e in els {
                    if e.get("type").and_then(Value::as_str) != Some("button") {
                        errs.push(format!("block {i}: non-button element"));
                        continue;
                    }
                    let t = e.get("text");
                    if t.and_then(|t| t.get("type")).and_then(Value::as_str) != Some("plain_text") {
                        errs.push(format!("block {i}: button text must be plain_text"));
                    }
                    match t.and_then(|t| t.get("text")).and_then(Value::as_str) {
                        Some(x) if !x.is_empty() && x.chars().count() <= 75 => {}
                        other => errs.push(format!("block {i}: button text {other:?}")),
                    }
                    match e.get("action_id").and_then(Value::as_str) {
                        Some(a) if a.chars().count() <= 255 => {
                            if action_ids.contains(&a) {
                                errs.push(format!("duplicate action_id {a}"));
                            }
                            action_ids.push(a);
                        }
                        other => errs.push(format!("block {i}: bad action_id {other:?}")),
                    }
                    match e.get("value").and_then(Value::as_str) {
                        Some(v) if v.chars().count() <= 2000 => {}
                        other => errs.push(format!("block {i}: bad value {other:?}")),
                    }
                    if let Some(st) = e.get("style") {
                        if !matches!(st.as_str(), Some("primary") | Some("danger")) {
                            errs.push(format!("block {i}: bad style {st}"));
                        }
                    }
                }
            }
            other => errs.push(format!("block {i}: unexpected type {other:?}")),
        }
    }
    if action_blocks > 1 {
        errs.push(format!("{action_blocks} actions blocks (one expected)"));
    }
    errs
}

fn assert_valid(msg: &Value) {
    let errs = block_kit_errors(msg);
    assert!(
        errs.is_empty(),
        "invalid Block Kit: {errs:?}\n{}",
        pretty(msg)
    );
}

#[test]
fn slack_is_valid_block_kit() {
    for c in cases() {
        let msg = render::slack(&c.view).expect("slack");
        assert_valid(&msg);
        assert_valid(&render::slack_resolved(&c.view, &c.resolution));
        // One button per offered option, in order, labelled with the fixed
        // labels, styled and keyed as §7.5 says.
        let blocks = msg["blocks"].as_array().unwrap();
        let actions: Vec<&Value> = blocks.iter().filter(|b| b["type"] == "actions").collect();
        assert_eq!(actions.len(), 1);
        let buttons = actions[0]["elements"].as_array().unwrap();
        assert_eq!(buttons.len(), c.view.options.len(), "{}", c.name);
        for (b, key) in buttons.iter().zip(&c.view.options) {
            assert_eq!(b["text"]["text"], prompt::label(key).unwrap());
            assert_eq!(b["action_id"], format!("tool_approval_{key}"));
            let value = b["value"].as_str().unwrap();
            let (id, k, req) = prompt::decode_button(value).unwrap();
            assert_eq!(
                (id.as_str(), k.as_str(), req.as_str()),
                ("call-7f3a9c", key.as_str(), "U024BE7LH")
            );
            let style = b.get("style").and_then(Value::as_str);
            let want = match key.as_str() {
                "approve_everywhere" | "deny" => Some("danger"),
                "approve_once" => Some("primary"),
                _ => None,
            };
            assert_eq!(style, want, "{key}");
        }
        // Resolved: no buttons.
        let resolved = render::slack_resolved(&c.view, &c.resolution);
        assert!(!resolved["blocks"]
            .as_array()
            .unwrap()
            .iter()
            .any(|b| b["type"] == "actions"));
    }
}

#[test]
fn discord_buttons() {
    for c in cases() {
        let msg = render::discord(&c.view).expect("discord");
        let rows = msg["components"].as_array().unwrap();
        assert_eq!(rows.len(), 1);
        let buttons = rows[0]["components"].as_array().unwrap();
        assert!(buttons.len() <= 5);
        assert_eq!(buttons.len(), c.view.options.len());
        for (b, key) in buttons.iter().zip(&c.view.options) {
            assert_eq!(b["type"], 2);
            assert_eq!(b["label"], prompt::label(key).unwrap());
            assert!(b["label"].as_str().unwrap().chars().count() <= 80);
            let id = b["custom_id"].as_str().unwrap();
            assert!(id.chars().count() <= 100);
            assert_eq!(prompt::decode_button(id).unwrap().1, *key);
            let want = match key.as_str() {
                "approve_everywhere" | "deny" => 4,
                "approve_once" => 1,
                _ => 2,
            };
            assert_eq!(b["style"], want, "{key}");
        }
        let embed = &msg["embeds"][0];
        assert!(embed["title"].as_str().unwrap().chars().count() <= 256);
        assert!(embed["description"].as_str().unwrap().chars().count() <= 4096);
        assert_eq!(msg["allowed_mentions"]["parse"], serde_json::json!([]));
        let resolved = render::discord_resolved(&c.view, &c.resolution);
        assert_eq!(resolved["components"], serde_json::json!([]));
    }
}

/// The display text inside the request code span, for Slack or Discord.
fn code_span(text: &str) -> &str {
    let start = text.find('`').expect("code span") + 1;
    let end = text.rfind('`').expect("code span");
    &text[start..end]
}

#[test]
fn long_display_is_middle_truncated_to_the_budget() {
    let display = format!("echo {}{}", "a".repeat(4000), "z".repeat(4000));
    let len = display.chars().count();
    let marker = format!(" … [truncated, original {len} chars] … ");
    let mut v = view(
        &display,
        &ALL,
        prompt::build(&s(&["echo"]), "/home/u/repos/app", false),
    );
    v.prompt.bullets = (0..40)
        .map(|i| format!("verb{i} {}", "x".repeat(500)))
        .collect();
    let msg = render::slack(&v).unwrap();
    assert_valid(&msg);
    let req = msg["blocks"][1]["text"]["text"].as_str().unwrap();
    let shown = code_span(req);
    assert_eq!(shown.chars().count(), render::SLACK_BUDGET);
    assert!(shown.contains(&marker));
    assert!(shown.starts_with("echo aaa") && shown.ends_with("zzz"));

    let msg = render::discord(&v).unwrap();
    let desc = msg["embeds"][0]["description"].as_str().unwrap();
    assert!(desc.chars().count() <= 4096, "{}", desc.chars().count());
    let first = desc.lines().next().unwrap();
    let shown = code_span(first);
    assert_eq!(shown.chars().count(), render::DISCORD_BUDGET);
    assert!(shown.contains(&marker));
    // Short text is left alone.
    let short = view(
        "make build",
        &ALL,
        prompt::build(&s(&["make build"]), "/x/y", false),
    );
    let req = render::slack(&short).unwrap()["blocks"][1]["text"]["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(code_span(&req), "make build");
}

#[test]
fn backticks_and_markup_cannot_escape_their_code_span() {
    let v = view(
        "echo `id` <!channel> @everyone && curl x",
        &ALL,
        prompt::build(&s(&["echo `id`", "curl x"]), "/home/u/`x`", false),
    );
    let slack = render::slack(&v).unwrap();
    assert_valid(&slack);
    let all = slack.to_string();
    assert!(!all.contains("`id`"), "{all}");
    assert!(all.contains("'id'"));
    assert!(!all.contains("<!channel>"));
    let discord = render::discord(&v).unwrap().to_string();
    assert!(!discord.contains("`id`"));
    assert!(discord.contains("'id'"));
    // Labels never carry the command.
    for b in slack["blocks"].as_array().unwrap().last().unwrap()["elements"]
        .as_array()
        .unwrap()
    {
        assert!(!b["text"]["text"].as_str().unwrap().contains("echo"));
    }
}

#[test]
fn unencodable_button_values_are_an_error() {
    let mut v = view("make", &ALL, prompt::build(&s(&["make"]), "/x/y", false));
    v.requester = "a|b".into();
    assert!(render::slack(&v).is_err());
    assert!(render::discord(&v).is_err());
    // A long call id is shortened to fit.
    v.requester = "U1".into();
    v.call_id = "c".repeat(500);
    let msg = render::slack(&v).unwrap();
    assert_valid(&msg);
}

#[test]
fn many_random_prompts_stay_valid() {
    // A deterministic sweep of awkward inputs.
    let pieces = [
        "`",
        "<",
        ">",
        "&",
        "*",
        "_",
        "~",
        "|",
        "\u{1b}[2K",
        "é",
        "日本",
        " ",
        "x",
    ];
    for n in 0..200usize {
        let mut display = String::new();
        for k in 0..(n * 37 % 4000) {
            display.push_str(pieces[(n + k * 7) % pieces.len()]);
        }
        if display.trim().is_empty() {
            display.push('x');
        }
        let verbs: Vec<String> = (0..(n % 30))
            .map(|i| format!("v{i}{}", pieces[(n + i) % pieces.len()].repeat(n % 300)))
            .collect();
        let options: Vec<&str> = if n % 3 == 0 {
            vec!["approve_once", "deny"]
        } else {
            ALL.to_vec()
        };
        let v = view(
            &display,
            &options,
            prompt::build(&verbs, "/home/u/app", n % 3 == 0),
        );
        assert_valid(&render::slack(&v).unwrap());
        let res = Resolution::new(options[n % options.len()], &verbs, "/home/u/app");
        assert_valid(&render::slack_resolved(&v, &res));
        let d = render::discord(&v).unwrap();
        assert!(
            d["embeds"][0]["description"]
                .as_str()
                .unwrap()
                .chars()
                .count()
                <= 4096
        );
        let d = render::discord_resolved(&v, &res);
        assert!(
            d["embeds"][0]["description"]
                .as_str()
                .unwrap()
                .chars()
                .count()
                <= 4096
        );
    }
}

#[test]
fn views_come_from_real_decisions() {
    use shellgate_policy::config::PolicyConfig;
    use shellgate_policy::decision::{self, Context, NoLookups, Policy, Request};
    use shellgate_policy::fs::OsFs;
    use shellgate_policy::{Audience, Channel, Os};

    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let work = root.join("work");
    let session_dir = root.join("gate").join("sessions").join("s1");
    std::fs::create_dir_all(&work).unwrap();
    std::fs::create_dir_all(&session_dir).unwrap();
    let work = work.to_string_lossy().to_string();
    let ctx = Context {
        session: "s1".into(),
        audience: Audience::Personal,
        channel: Channel::Interactive,
        os: Os::Linux,
        project_dir: None,
        session_dir: session_dir.to_string_lossy().to_string(),
        home: root.join("home").to_string_lossy().to_string(),
        gate_home: root.join("gate").to_string_lossy().to_string(),
        fs: &OsFs,
        run_env: shellgate_policy::RunEnv {
            path: Some("/usr/local/bin:/usr/bin:/bin"),
            xdg_config_home: None,
            cdpath: None,
        },
    };
    let pol = Policy::new(PolicyConfig::default(), &[]);
    let req = Request {
        tool: "shell_execute".into(),
        command: "make build && make test".into(),
        working_directory: Some(work.clone()),
    };
    let d = decision::evaluate(&pol, &req, &ctx, &NoLookups);
    assert_eq!(d.decision, "ask");
    let v = PromptView::from_decision(&d, "c1", "u1").expect("a view of an ask");
    assert_eq!(v.display, "make build && make test");
    assert_eq!(v.prompt.bullets, s(&["make build", "make test"]));
    assert_eq!(v.options.len(), 5);
    assert_valid(&render::slack(&v).unwrap());
    let text = render::terminal(&v);
    assert!(text.contains(&format!("Approve in {work}?")), "{text}");
    assert!(text.contains("  • make build\n  • make test\n"), "{text}");
    let res = Resolution::from_decision(&d, "approve_always");
    assert_eq!(res.line, format!("Saved: make build, make test in {work}"));
    assert!(render::terminal_resolved(&v, &res).ends_with(&format!("{}\n", res.line)));

    // Allow and deny have no prompt to render.
    let req = Request {
        tool: "shell_execute".into(),
        command: "echo hi".into(),
        working_directory: Some(work),
    };
    let d = decision::evaluate(&pol, &req, &ctx, &NoLookups);
    assert_eq!(d.decision, "allow");
    assert!(PromptView::from_decision(&d, "c1", "u1").is_none());
}
