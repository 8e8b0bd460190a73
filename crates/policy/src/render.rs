//! Renderers of the prompt model (SPEC §7.5): plain terminal text, Slack
//! Block Kit JSON, Discord message JSON, and their resolved variants (no
//! buttons, the resolution line of §7.3).
//!
//! Everything here is pure: a [`PromptView`] (and a [`Resolution`]) in, text
//! or JSON out. Button labels are the fixed labels of [`prompt::label`];
//! commands and paths are only ever interpolated into message text, where
//! they are sanitized for the channel:
//!
//! - control and invisible characters become visible escapes
//!   ([`display::escape`]);
//! - in chat channels backticks become `'` (so a value cannot close the code
//!   span it sits in), Slack's `&`, `<`, `>` are entity-escaped (no `<!here>`
//!   or link injection), Discord's markdown characters are backslash-escaped
//!   outside code spans and mentions are disabled (`allowed_mentions`);
//! - the display text is middle-truncated to the channel budget (Slack 2500,
//!   Discord 1700 characters) with the marker
//!   ` … [truncated, original <len> chars] … `; other interpolated values
//!   have smaller budgets so every message stays inside the platform limits.
//!
//! The terminal keeps backticks as they are: it has no markup a value could
//! break out of, and showing `` `date` `` as `'date'` would hide a command
//! substitution from the person deciding.

use serde_json::{json, Map, Value};

use crate::decision::Decision;
use crate::model::SHELL_TOOL;
use crate::prompt::{self, Prompt};
use shellgate_shell::display;

/// Slack budget for the display text (characters).
pub const SLACK_BUDGET: usize = 2500;
/// Discord budget for the display text (characters).
pub const DISCORD_BUDGET: usize = 1700;
/// Prefix of every Slack `action_id` (followed by the option key).
pub const ACTION_PREFIX: &str = "tool_approval_";
/// `block_id` of the Slack actions block.
pub const ACTIONS_BLOCK_ID: &str = "tool_approval";

/// What a prompt shows: the call summary, the offered options and the
/// prompt text, plus who may answer (encoded into the button values).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptView {
    /// Tool name (`shell_execute`, `file_write`, …).
    pub tool: String,
    /// The one-line display text of the call (§3.5).
    pub display: String,
    /// Offered option keys, in order.
    pub options: Vec<String>,
    /// Header, bullets and hint (§7.2).
    pub prompt: Prompt,
    /// Id of the pending call (shortened inside button values to fit).
    pub call_id: String,
    /// Id of the person allowed to answer.
    pub requester: String,
}

impl PromptView {
    /// The view of a decision that asked; `None` for allow and deny.
    pub fn from_decision(d: &Decision, call_id: &str, requester: &str) -> Option<PromptView> {
        if d.decision != "ask" {
            return None;
        }
        Some(PromptView {
            tool: d.tool.clone(),
            display: d.display.clone(),
            options: d.options.clone()?,
            prompt: d.prompt.clone()?,
            call_id: call_id.to_string(),
            requester: requester.to_string(),
        })
    }

    /// Offered options that are known keys, deduplicated, in order.
    pub fn offered(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for o in &self.options {
            if prompt::label(o).is_some() && !out.contains(&o.as_str()) {
                out.push(o);
            }
        }
        out
    }
}

/// The answer to a prompt, for the resolved variants.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolution {
    /// The chosen option key.
    pub option: String,
    /// The resolution line (§7.3).
    pub line: String,
    /// Further lines (e.g. `Skipped (too broad): …`).
    pub notes: Vec<String>,
}

impl Resolution {
    /// The resolution of `option` for the display verbs and location.
    pub fn new(option: &str, verbs: &[String], location: &str) -> Resolution {
        Resolution {
            option: option.to_string(),
            line: prompt::resolution(option, verbs, location),
            notes: Vec::new(),
        }
    }

    /// The resolution of `option` for a decision that asked.
    pub fn from_decision(d: &Decision, option: &str) -> Resolution {
        Resolution::new(option, &d.display_verbs, &d.location)
    }

    /// Whether the answer approved the call.
    pub fn approved(&self) -> bool {
        self.option != "deny"
    }
}

/// Errors building chat payloads.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RenderError {
    /// A button value could not be encoded (`|` in the call id or
    /// requester, or a requester id too long for 100 characters).
    #[error("cannot encode a button value for option {option} (call id or requester contains '|' or is too long)")]
    ButtonValue { option: String },
}

// ----- sanitizing and budgets ----------------------------------------------

/// Per-channel limits for interpolated values (characters, after escaping).
#[derive(Debug, Clone, Copy)]
struct Limits {
    display: usize,
    header: usize,
    bullet: usize,
    bullets: usize,
    line: usize,
    tool: usize,
}

const SLACK: Limits = Limits {
    display: SLACK_BUDGET,
    header: 1000,
    bullet: 200,
    bullets: 12,
    line: 1000,
    tool: 100,
};

const DISCORD: Limits = Limits {
    display: DISCORD_BUDGET,
    header: 400,
    bullet: 120,
    bullets: 10,
    line: 400,
    tool: 100,
};

/// How one character of an interpolated value is written in a channel.
type Escaper = fn(char, &mut String);

fn esc_none(c: char, out: &mut String) {
    out.push(c);
}

/// Slack mrkdwn: the three characters Slack requires escaped.
fn esc_slack(c: char, out: &mut String) {
    match c {
        '&' => out.push_str("&amp;"),
        '<' => out.push_str("&lt;"),
        '>' => out.push_str("&gt;"),
        _ => out.push(c),
    }
}

/// Discord markdown outside code spans.
fn esc_discord(c: char, out: &mut String) {
    if matches!(
        c,
        '\\' | '*' | '_' | '~' | '|' | '<' | '>' | '[' | ']' | '#'
    ) {
        out.push('\\');
    }
    out.push(c);
}

/// The marker put in place of the middle of a truncated value.
pub fn truncation_marker(original_chars: usize) -> String {
    format!(" … [truncated, original {original_chars} chars] … ")
}

/// Sanitize a value for a chat channel: visible escapes for control
/// characters, backticks replaced by `'`.
fn chat_clean(s: &str) -> String {
    display::escape(s).replace('`', "'")
}

/// Write `text` (already cleaned) through `esc`, middle-truncated so the
/// result has at most `budget` characters.
fn fit(text: &str, budget: usize, esc: Escaper) -> String {
    let units: Vec<String> = text
        .chars()
        .map(|c| {
            let mut s = String::new();
            esc(c, &mut s);
            s
        })
        .collect();
    let width = |u: &String| u.chars().count();
    let total: usize = units.iter().map(width).sum();
    if total <= budget {
        return units.concat();
    }
    let marker = truncation_marker(text.chars().count());
    let room = budget.saturating_sub(marker.chars().count());
    let head_room = room.div_ceil(2);
    let mut head = String::new();
    let mut used = 0;
    let mut i = 0;
    while i < units.len() && used + width(&units[i]) <= head_room {
        used += width(&units[i]);
        head.push_str(&units[i]);
        i += 1;
    }
    let mut tail_units: Vec<&String> = Vec::new();
    let mut j = units.len();
    while j > i && used + width(&units[j - 1]) <= room {
        used += width(&units[j - 1]);
        tail_units.push(&units[j - 1]);
        j -= 1;
    }
    let tail: String = tail_units.into_iter().rev().map(String::as_str).collect();
    format!("{head}{marker}{tail}")
}

/// A cleaned, escaped, budgeted value for a chat channel.
fn chat(s: &str, budget: usize, esc: Escaper) -> String {
    fit(&chat_clean(s), budget, esc)
}

/// Bullets: at most `limits.bullets` entries, then `… and N more`.
fn bullet_lines(bullets: &[String], limits: Limits, esc: Escaper) -> Vec<String> {
    let mut out: Vec<String> = bullets
        .iter()
        .take(limits.bullets)
        .map(|b| format!("• `{}`", chat(b, limits.bullet, esc)))
        .collect();
    if bullets.len() > limits.bullets {
        out.push(format!("… and {} more", bullets.len() - limits.bullets));
    }
    out
}

/// The hint without its markdown italics (`_…_`), for plain text.
fn plain_hint(h: &str) -> &str {
    h.strip_prefix('_')
        .and_then(|x| x.strip_suffix('_'))
        .unwrap_or(h)
}

fn tool_title(tool: &str) -> Option<&str> {
    (tool == SHELL_TOOL).then_some("shell command")
}

fn button_value(view: &PromptView, key: &str) -> Result<String, RenderError> {
    prompt::encode_button(&view.call_id, key, &view.requester).ok_or_else(|| {
        RenderError::ButtonValue {
            option: key.to_string(),
        }
    })
}

// ----- terminal ------------------------------------------------------------

/// Terminal text up to (not including) the options: title, the request,
/// the header, bullets and hint. Ends with a newline.
pub fn terminal_body(view: &PromptView) -> String {
    let t = |s: &str| display::escape(s);
    let mut s = String::new();
    match tool_title(&view.tool) {
        Some(title) => s.push_str(&format!("shellgate: approval needed ({title})\n")),
        None => s.push_str(&format!("shellgate: approval needed ({})\n", t(&view.tool))),
    }
    if view.tool == SHELL_TOOL {
        s.push_str(&format!("  $ {}\n", t(&view.display)));
    } else {
        s.push_str(&format!("  path: {}\n", t(&view.display)));
    }
    s.push('\n');
    s.push_str(&format!("{}\n", t(&view.prompt.header)));
    for b in &view.prompt.bullets {
        s.push_str(&format!("  • {}\n", t(b)));
    }
    if let Some(h) = &view.prompt.hint {
        s.push_str(&format!("  {}\n", t(plain_hint(h))));
    }
    s
}

/// The letter of the n-th offered option (`a`, `b`, …).
pub fn option_letter(index: usize) -> char {
    (b'a' + (index % 26) as u8) as char
}

/// One option line of the terminal menu; `selected` marks the highlighted
/// entry (the arrow keys move it).
pub fn terminal_option_line(index: usize, key: &str, selected: bool) -> String {
    let label = prompt::label(key).unwrap_or("?");
    let mark = if selected { '>' } else { ' ' };
    format!("  {mark} {}) {label}", option_letter(index))
}

/// The whole prompt as plain terminal text, options lettered in offered
/// order.
pub fn terminal(view: &PromptView) -> String {
    let mut s = terminal_body(view);
    s.push('\n');
    for (i, key) in view.offered().iter().enumerate() {
        s.push_str(&terminal_option_line(i, key, false));
        s.push('\n');
    }
    s
}

/// The answered prompt: title, request, the resolution line and notes.
pub fn terminal_resolved(view: &PromptView, res: &Resolution) -> String {
    let t = |s: &str| display::escape(s);
    let mut s = terminal_body(view);
    s.push('\n');
    s.push_str(&format!("{}\n", t(&res.line)));
    for n in &res.notes {
        s.push_str(&format!("{}\n", t(n)));
    }
    s
}

// ----- Slack ---------------------------------------------------------------

fn mrkdwn_section(text: String) -> Value {
    json!({"type": "section", "text": {"type": "mrkdwn", "text": text}})
}

fn plain_section(text: String) -> Value {
    json!({"type": "section", "text": {"type": "plain_text", "text": text, "emoji": false}})
}

fn slack_head(view: &PromptView) -> Vec<Value> {
    let title = match tool_title(&view.tool) {
        Some(t) => format!("*Approval needed* · {t}"),
        None => format!(
            "*Approval needed* · `{}`",
            chat(&view.tool, SLACK.tool, esc_slack)
        ),
    };
    let what = if view.tool == SHELL_TOOL {
        "Command"
    } else {
        "Path"
    };
    vec![
        mrkdwn_section(title),
        mrkdwn_section(format!(
            "*{what}:* `{}`",
            chat(&view.display, SLACK.display, esc_slack)
        )),
    ]
}

/// Slack Block Kit message (`{"text": fallback, "blocks": [...]}`): title
/// section, request section (display text in a code span), header,
/// bullets, hint, and one actions block with a button per offered option.
pub fn slack(view: &PromptView) -> Result<Value, RenderError> {
    let mut blocks = slack_head(view);
    blocks.push(plain_section(chat(
        &view.prompt.header,
        SLACK.header,
        esc_none,
    )));
    if !view.prompt.bullets.is_empty() {
        blocks.push(mrkdwn_section(
            bullet_lines(&view.prompt.bullets, SLACK, esc_slack).join("\n"),
        ));
    }
    if let Some(h) = &view.prompt.hint {
        blocks.push(json!({
            "type": "context",
            "elements": [{"type": "mrkdwn", "text": chat(h, SLACK.line, esc_slack)}],
        }));
    }
    let mut buttons = Vec::new();
    for key in view.offered() {
        let mut b = Map::new();
        b.insert("type".into(), json!("button"));
        b.insert(
            "text".into(),
            json!({"type": "plain_text", "text": prompt::label(key).unwrap_or("?"), "emoji": false}),
        );
        b.insert("action_id".into(), json!(format!("{ACTION_PREFIX}{key}")));
        b.insert("value".into(), json!(button_value(view, key)?));
        match prompt::style(key) {
            "danger" => {
                b.insert("style".into(), json!("danger"));
            }
            "primary" => {
                b.insert("style".into(), json!("primary"));
            }
            _ => {}
        }
        buttons.push(Value::Object(b));
    }
    blocks.push(json!({"type": "actions", "block_id": ACTIONS_BLOCK_ID, "elements": buttons}));
    Ok(json!({
        "text": chat(&view.prompt.header, SLACK.header, esc_slack),
        "blocks": blocks,
    }))
}

/// The Slack message after an answer: title, request, the resolution line
/// (and notes); no buttons.
pub fn slack_resolved(view: &PromptView, res: &Resolution) -> Value {
    let mut blocks = slack_head(view);
    blocks.push(plain_section(chat(&res.line, SLACK.line, esc_none)));
    if !res.notes.is_empty() {
        let elements: Vec<Value> = res
            .notes
            .iter()
            .take(10)
            .map(|n| json!({"type": "plain_text", "text": chat(n, SLACK.line, esc_none), "emoji": false}))
            .collect();
        blocks.push(json!({"type": "context", "elements": elements}));
    }
    json!({
        "text": chat(&res.line, SLACK.line, esc_slack),
        "blocks": blocks,
    })
}

// ----- Discord -------------------------------------------------------------

/// Discord `ButtonStyle` of an option: 1 primary, 2 secondary, 4 danger.
pub fn discord_style(key: &str) -> u8 {
    match prompt::style(key) {
        "primary" => 1,
        "danger" => 4,
        _ => 2,
    }
}

const DISCORD_PENDING: u32 = 0xE6_7E_22;
const DISCORD_APPROVED: u32 = 0x2E_CC_71;
const DISCORD_DENIED: u32 = 0xE7_4C_3C;

fn discord_title(view: &PromptView) -> String {
    match tool_title(&view.tool) {
        Some(t) => format!("Approval needed · {t}"),
        None => format!(
            "Approval needed · {}",
            chat(&view.tool, DISCORD.tool, esc_none)
        ),
    }
}

fn discord_request(view: &PromptView) -> String {
    let what = if view.tool == SHELL_TOOL {
        "Command"
    } else {
        "Path"
    };
    format!(
        "**{what}:** `{}`",
        chat(&view.display, DISCORD.display, esc_none)
    )
}

/// Discord message JSON: one embed (title, request in a code span, header,
/// bullets, hint) and one action row with a button per offered option
/// (`custom_id` = the button value). Mentions are disabled.
pub fn discord(view: &PromptView) -> Result<Value, RenderError> {
    let mut desc = vec![
        discord_request(view),
        String::new(),
        format!(
            "**{}**",
            chat(&view.prompt.header, DISCORD.header, esc_discord)
        ),
    ];
    desc.extend(bullet_lines(&view.prompt.bullets, DISCORD, esc_none));
    if let Some(h) = &view.prompt.hint {
        // The hint is markdown already (`_…_`); escape only what it
        // interpolates.
        let inner = plain_hint(h);
        desc.push(format!("_{}_", chat(inner, DISCORD.line, esc_discord)));
    }
    let mut buttons = Vec::new();
    for key in view.offered() {
        buttons.push(json!({
            "type": 2,
            "style": discord_style(key),
            "label": prompt::label(key).unwrap_or("?"),
            "custom_id": button_value(view, key)?,
        }));
    }
    Ok(json!({
        "embeds": [{
            "title": discord_title(view),
            "description": desc.join("\n"),
            "color": DISCORD_PENDING,
        }],
        "components": [{"type": 1, "components": buttons}],
        "allowed_mentions": {"parse": []},
    }))
}

/// The Discord message after an answer: the embed with the resolution line,
/// and no components (an edit with `components: []` removes the buttons).
pub fn discord_resolved(view: &PromptView, res: &Resolution) -> Value {
    let mut desc = vec![
        discord_request(view),
        String::new(),
        format!("**{}**", chat(&res.line, DISCORD.line, esc_discord)),
    ];
    for n in res.notes.iter().take(10) {
        desc.push(chat(n, DISCORD.line, esc_discord));
    }
    json!({
        "embeds": [{
            "title": discord_title(view),
            "description": desc.join("\n"),
            "color": if res.approved() { DISCORD_APPROVED } else { DISCORD_DENIED },
        }],
        "components": [],
        "allowed_mentions": {"parse": []},
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_keeps_short_text() {
        assert_eq!(fit("abc", 10, esc_none), "abc");
        assert_eq!(fit("a<b", 10, esc_slack), "a&lt;b");
    }

    #[test]
    fn fit_truncates_in_the_middle() {
        let text: String = "a".repeat(3000) + &"z".repeat(3000);
        let out = fit(&text, 2500, esc_none);
        assert_eq!(out.chars().count(), 2500);
        assert!(out.starts_with("aaa"));
        assert!(out.ends_with("zzz"));
        assert!(out.contains(" … [truncated, original 6000 chars] … "));
    }

    #[test]
    fn fit_counts_escapes() {
        let text = "<".repeat(2000);
        let out = fit(&text, 2500, esc_slack);
        assert!(out.chars().count() <= 2500);
        // No entity is cut in half.
        assert!(!out.replace("&lt;", "").contains('&'));
        assert!(out.contains("original 2000 chars"));
    }

    #[test]
    fn letters() {
        assert_eq!(option_letter(0), 'a');
        assert_eq!(option_letter(4), 'e');
    }
}
