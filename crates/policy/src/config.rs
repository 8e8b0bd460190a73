//! Operator configuration read from `$SHELLGATE_HOME/config/` (SPEC §2.1):
//! the policy file `policy.toml` (SPEC §9.2–§9.6) and the user additions to
//! the safe verb list `safe-verbs.<os>.json` (SPEC §8.1).
//!
//! Both files are optional. A malformed policy file is an error naming the
//! file and the line, never a silent fallback to the defaults (fail closed);
//! a malformed safe-verb file is an error the caller reports as a warning
//! before continuing with the bundled list.

use std::collections::BTreeMap;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::model::{Audience, FILE_TOOLS, SHELL_TOOL};

/// Errors reading the configuration files.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file exists but could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    /// `policy.toml` is malformed (syntax, types, unknown keys or values).
    #[error("invalid policy file {}{}: {message}", path.display(), LineSuffix(*line))]
    Policy {
        path: PathBuf,
        /// 1-based line of the offending text, when known.
        line: Option<usize>,
        message: String,
    },
    /// `safe-verbs.<os>.json` is malformed.
    #[error("invalid safe-verb file {}{}: {message}", path.display(), LineSuffix(*line))]
    SafeVerbs {
        path: PathBuf,
        /// 1-based line of the offending text, when known.
        line: Option<usize>,
        message: String,
    },
}

impl ConfigError {
    /// The file the error is about.
    pub fn path(&self) -> &Path {
        match self {
            ConfigError::Read { path, .. }
            | ConfigError::Policy { path, .. }
            | ConfigError::SafeVerbs { path, .. } => path,
        }
    }

    /// 1-based line of the error in the file, when known.
    pub fn line(&self) -> Option<usize> {
        match self {
            ConfigError::Read { .. } => None,
            ConfigError::Policy { line, .. } | ConfigError::SafeVerbs { line, .. } => *line,
        }
    }
}

/// Renders `, line N` (or nothing) in error messages.
struct LineSuffix(Option<usize>);

impl fmt::Display for LineSuffix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(n) => write!(f, ", line {n}"),
            None => Ok(()),
        }
    }
}

/// A tool's mode for an audience (SPEC §9.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Allowed without grants (hard deny, protected paths and zones still apply).
    Auto,
    /// Needs a grant or a human.
    Approval,
    /// Refused (`tool_denied_by_approval_policy`).
    Deny,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Auto => "auto",
            Mode::Approval => "approval",
            Mode::Deny => "deny",
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// File access mode of an audience, for reads or for writes (SPEC §9.6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FileMode {
    /// Anywhere (protected paths and zones still apply).
    All,
    /// Only inside session_dir, project_dir (not for `public`) and the
    /// configured roots.
    Roots,
    /// Never.
    None,
}

impl FileMode {
    pub fn as_str(self) -> &'static str {
        match self {
            FileMode::All => "all",
            FileMode::Roots => "roots",
            FileMode::None => "none",
        }
    }
}

impl fmt::Display for FileMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `[audiences.<name>.files]`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FilesPolicy {
    #[serde(default)]
    pub read: Option<FileMode>,
    #[serde(default)]
    pub write: Option<FileMode>,
    /// Extra roots as written (may start with `~`, see [`expand_home`]).
    #[serde(default)]
    pub roots: Vec<String>,
}

/// Whether calls of an audience may be allowed to run inside the OS
/// sandbox without a human (SPEC §18, `sandbox = "auto" | "off"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SandboxMode {
    /// Build, test and edit calls inside the project run confined instead
    /// of asking (where the kernel can confine and the host can rewrite).
    Auto,
    /// Never: such calls ask as before.
    Off,
}

/// `[safe]`: where read-only verbs may read outside the safe spaces (the
/// read roots of `crate::read_roots`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SafePolicy {
    /// Extra read roots as written (may start with `~`).
    #[serde(default)]
    pub read_roots: Vec<String>,
    /// Whether the built-in read roots (system locations, toolchain
    /// caches) apply (default true).
    #[serde(default = "yes")]
    pub builtin_read_roots: bool,
}

fn yes() -> bool {
    true
}

impl Default for SafePolicy {
    fn default() -> Self {
        SafePolicy {
            read_roots: Vec::new(),
            builtin_read_roots: true,
        }
    }
}

/// `[audiences.<name>]`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AudiencePolicy {
    #[serde(default)]
    pub default_mode: Option<Mode>,
    /// Per-tool modes, tool name → mode.
    #[serde(default)]
    pub modes: BTreeMap<String, Mode>,
    /// When present, only these tools are admitted.
    #[serde(default)]
    pub tools: Option<Vec<String>>,
    #[serde(default)]
    pub files: FilesPolicy,
    /// SPEC §18: `auto` or `off` (default: `auto` for personal, `off` for
    /// team and public).
    #[serde(default)]
    pub sandbox: Option<SandboxMode>,
}

/// `[audiences]`: exactly the three audience names are accepted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AudiencesPolicy {
    #[serde(default)]
    pub personal: AudiencePolicy,
    #[serde(default)]
    pub team: AudiencePolicy,
    #[serde(default)]
    pub public: AudiencePolicy,
}

impl AudiencesPolicy {
    fn get(&self, audience: Audience) -> &AudiencePolicy {
        match audience {
            Audience::Personal => &self.personal,
            Audience::Team => &self.team,
            Audience::Public => &self.public,
        }
    }
}

/// `[autonomous]` (SPEC §9.5).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AutonomousPolicy {
    #[serde(default)]
    pub read_roots: Vec<String>,
}

/// `[environment]` (SPEC §15.14): names the operator declares inert.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnvironmentPolicy {
    #[serde(default)]
    pub inert: Vec<String>,
}

/// `[protected]` (SPEC §9.4): operator additions to the protected paths.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProtectedPolicy {
    #[serde(default)]
    pub read: Vec<String>,
    #[serde(default)]
    pub write: Vec<String>,
}

/// One `[[hard_deny]]` operator rule (SPEC §9.3 `custom_deny`): exactly one
/// of `verb` (token prefix of the normalized verb words, case-insensitive)
/// and `raw` (substring of the command text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HardDenyRule {
    pub verb: Option<String>,
    pub raw: Option<String>,
    pub reason: String,
}

/// The shape of a `[[hard_deny]]` table before validation.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHardDenyRule {
    #[serde(default)]
    verb: Option<String>,
    #[serde(default)]
    raw: Option<String>,
    reason: String,
}

impl RawHardDenyRule {
    fn validate(self) -> Result<HardDenyRule, &'static str> {
        match (&self.verb, &self.raw) {
            (Some(_), Some(_)) => {
                Err("a [[hard_deny]] rule must have either `verb` or `raw`, not both")
            }
            (None, None) => Err("a [[hard_deny]] rule needs `verb` or `raw`"),
            (Some(v), None) if v.trim().is_empty() => {
                Err("a [[hard_deny]] rule has an empty `verb`")
            }
            (None, Some(r)) if r.is_empty() => Err("a [[hard_deny]] rule has an empty `raw`"),
            _ => Ok(HardDenyRule {
                verb: self.verb.map(|v| v.trim().to_string()),
                raw: self.raw,
                reason: self.reason,
            }),
        }
    }
}

/// The shape of `policy.toml` before the `[[hard_deny]]` rules are
/// validated (their spans give the line of a bad rule).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPolicyConfig {
    #[serde(default)]
    audiences: AudiencesPolicy,
    #[serde(default)]
    autonomous: AutonomousPolicy,
    #[serde(default)]
    protected: ProtectedPolicy,
    #[serde(default)]
    environment: EnvironmentPolicy,
    #[serde(default)]
    hard_deny: Vec<toml::Spanned<RawHardDenyRule>>,
    #[serde(default)]
    safe: SafePolicy,
}

/// The contents of `config/policy.toml` (SPEC §9.2). `Default` is the
/// built-in policy used when the file does not exist.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PolicyConfig {
    pub audiences: AudiencesPolicy,
    pub autonomous: AutonomousPolicy,
    pub protected: ProtectedPolicy,
    pub environment: EnvironmentPolicy,
    pub hard_deny: Vec<HardDenyRule>,
    pub safe: SafePolicy,
}

impl PolicyConfig {
    /// Load the policy file. A missing file yields the built-in defaults;
    /// an unreadable or malformed one is an error naming the file (and the
    /// line, when the problem is in its contents).
    pub fn load(path: &Path) -> Result<PolicyConfig, ConfigError> {
        match read_optional(path)? {
            None => Ok(PolicyConfig::default()),
            Some(text) => PolicyConfig::parse(&text, path),
        }
    }

    /// Parse policy text; `path` is only used in error messages.
    pub fn parse(text: &str, path: &Path) -> Result<PolicyConfig, ConfigError> {
        let text = strip_bom(text);
        let error = |line: Option<usize>, message: String| ConfigError::Policy {
            path: path.to_path_buf(),
            line,
            message,
        };
        let raw: RawPolicyConfig = toml::from_str(text).map_err(|e| {
            error(
                e.span().map(|span| line_of_offset(text, span.start)),
                e.message().trim().to_string(),
            )
        })?;
        let mut hard_deny = Vec::with_capacity(raw.hard_deny.len());
        for spanned in raw.hard_deny {
            let line = line_of_offset(text, spanned.span().start);
            let rule = spanned
                .into_inner()
                .validate()
                .map_err(|m| error(Some(line), m.into()))?;
            hard_deny.push(rule);
        }
        Ok(PolicyConfig {
            audiences: raw.audiences,
            autonomous: raw.autonomous,
            protected: raw.protected,
            environment: raw.environment,
            hard_deny,
            safe: raw.safe,
        })
    }

    /// The configuration of one audience as written.
    pub fn audience(&self, audience: Audience) -> &AudiencePolicy {
        self.audiences.get(audience)
    }

    /// The mode of `tool` for `audience`: the audience's per-tool mode, else
    /// its `default_mode`, else the built-in default (SPEC §9.2). An explicit
    /// mode is honoured as written, including for `shell_execute`.
    pub fn tool_mode(&self, audience: Audience, tool: &str) -> Mode {
        let a = self.audience(audience);
        if let Some(mode) = a.modes.get(tool) {
            return *mode;
        }
        if let Some(mode) = a.default_mode {
            return mode;
        }
        builtin_tool_mode(audience, tool)
    }

    /// Whether `tool` is admitted for `audience`: false only when the
    /// audience has a `tools` list that does not name it.
    pub fn tool_allowed(&self, audience: Audience, tool: &str) -> bool {
        match &self.audience(audience).tools {
            Some(list) => list.iter().any(|t| t == tool),
            None => true,
        }
    }

    /// `(read, write)` file modes of `audience` (SPEC §9.6), configured or
    /// built-in (personal `all`/`all`; team and public `roots`/`roots`).
    pub fn file_modes(&self, audience: Audience) -> (FileMode, FileMode) {
        let (default_read, default_write) = builtin_file_modes(audience);
        let files = &self.audience(audience).files;
        (
            files.read.unwrap_or(default_read),
            files.write.unwrap_or(default_write),
        )
    }

    /// The audience's configured extra file roots, as written (unexpanded).
    pub fn file_roots(&self, audience: Audience) -> Vec<String> {
        self.audience(audience).files.roots.clone()
    }

    /// `[autonomous] read_roots`, as written (unexpanded).
    pub fn autonomous_read_roots(&self) -> &[String] {
        &self.autonomous.read_roots
    }

    /// `[protected] read`, as written (unexpanded).
    pub fn protected_read(&self) -> &[String] {
        &self.protected.read
    }

    /// `[protected] write`, as written (unexpanded).
    pub fn protected_write(&self) -> &[String] {
        &self.protected.write
    }

    /// Whether the sandboxed allow of SPEC §18 is on for `audience`: as
    /// configured, else `auto` for personal and `off` for team and public.
    pub fn sandbox_mode(&self, audience: Audience) -> SandboxMode {
        self.audience(audience).sandbox.unwrap_or(match audience {
            Audience::Personal => SandboxMode::Auto,
            Audience::Team | Audience::Public => SandboxMode::Off,
        })
    }

    /// `[safe]`: the read roots configuration.
    pub fn safe_reads(&self) -> &SafePolicy {
        &self.safe
    }

    /// Operator `[[hard_deny]]` rules, in file order.
    pub fn hard_deny_rules(&self) -> &[HardDenyRule] {
        &self.hard_deny
    }
}

/// Built-in tool modes (SPEC §9.2): file tools `auto`; `shell_execute`
/// `approval` (personal, team) or `deny` (public); any other tool `approval`.
pub fn builtin_tool_mode(audience: Audience, tool: &str) -> Mode {
    if FILE_TOOLS.contains(&tool) {
        Mode::Auto
    } else if tool == SHELL_TOOL && audience == Audience::Public {
        Mode::Deny
    } else {
        Mode::Approval
    }
}

/// Built-in `(read, write)` file modes (SPEC §9.6).
pub fn builtin_file_modes(audience: Audience) -> (FileMode, FileMode) {
    match audience {
        Audience::Personal => (FileMode::All, FileMode::All),
        Audience::Team | Audience::Public => (FileMode::Roots, FileMode::Roots),
    }
}

/// Expand a leading `~` (alone, or followed by `/` or `\`) to `home`;
/// anything else (including `~user`) is returned unchanged. The result is not
/// normalized.
pub fn expand_home(path: &str, home: &str) -> String {
    let rest = if path == "~" {
        ""
    } else if let Some(rest) = path.strip_prefix("~/").or_else(|| path.strip_prefix("~\\")) {
        rest
    } else {
        return path.to_string();
    };
    if rest.is_empty() {
        home.to_string()
    } else if home.ends_with('/') || home.ends_with('\\') {
        format!("{home}{rest}")
    } else {
        format!("{home}/{rest}")
    }
}

/// `{"verbs": [...]}` form of the safe-verb file.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SafeVerbsObject {
    verbs: Vec<String>,
}

/// Load the user additions to the safe verb list (SPEC §8.1): a JSON array of
/// strings or `{"verbs": [...]}`. Entries are trimmed; blank and repeated
/// entries are dropped. A missing file yields an empty list; a malformed one
/// is an error naming the file (the caller warns and keeps the bundled list).
pub fn load_user_safe_verbs(path: &Path) -> Result<Vec<String>, ConfigError> {
    match read_optional(path)? {
        None => Ok(Vec::new()),
        Some(text) => parse_user_safe_verbs(&text, path),
    }
}

/// Parse safe-verb file text; `path` is only used in error messages.
pub fn parse_user_safe_verbs(text: &str, path: &Path) -> Result<Vec<String>, ConfigError> {
    let text = strip_bom(text);
    let err = |line: Option<usize>, message: String| ConfigError::SafeVerbs {
        path: path.to_path_buf(),
        line,
        message,
    };
    let json_err = |e: serde_json::Error| {
        let line = if e.line() == 0 { None } else { Some(e.line()) };
        err(line, e.to_string())
    };
    let raw: Vec<String> = match text.trim_start().chars().next() {
        Some('[') => serde_json::from_str(text).map_err(json_err)?,
        Some('{') => {
            serde_json::from_str::<SafeVerbsObject>(text)
                .map_err(json_err)?
                .verbs
        }
        Some(_) => {
            let line = line_of_offset(text, text.len() - text.trim_start().len());
            return Err(err(
                Some(line),
                "expected a JSON array of verb strings or {\"verbs\": [...]}".to_string(),
            ));
        }
        None => return Err(err(None, "the file is empty".to_string())),
    };
    let mut verbs: Vec<String> = Vec::with_capacity(raw.len());
    for verb in raw {
        let verb = verb.trim();
        if !verb.is_empty() && !verbs.iter().any(|v| v == verb) {
            verbs.push(verb.to_string());
        }
    }
    Ok(verbs)
}

/// Read a UTF-8 file; `Ok(None)` when it does not exist.
fn read_optional(path: &Path) -> Result<Option<String>, ConfigError> {
    match std::fs::read(path) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(text) => Ok(Some(text)),
            Err(e) => Err(ConfigError::Read {
                path: path.to_path_buf(),
                source: io::Error::new(io::ErrorKind::InvalidData, e.utf8_error()),
            }),
        },
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(ConfigError::Read {
            path: path.to_path_buf(),
            source: e,
        }),
    }
}

fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// 1-based line number of byte `offset` in `text`.
fn line_of_offset(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    text.as_bytes()[..end]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    const SPEC_EXAMPLE: &str = r#"[audiences.personal]
default_mode = "auto"
tools = ["shell_execute", "file_read", "file_write"]   # optional
[audiences.personal.modes]
shell_execute = "approval"
[audiences.personal.files]
read = "all"          # all | roots | none
write = "all"
roots = ["~/notes"]
[autonomous]
read_roots = ["~/.config/agent/skills"]
[protected]
read = ["~/.aws"]
write = ["~/.aws"]
[[hard_deny]]
verb = "docker rm"
reason = "containers are managed by the platform team"
"#;

    fn write_policy(text: &str) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config").join("policy.toml");
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, text).unwrap();
        (dir, path)
    }

    fn policy_err(text: &str) -> (PathBuf, ConfigError, tempfile::TempDir) {
        let (dir, path) = write_policy(text);
        let err = PolicyConfig::load(&path).unwrap_err();
        (path, err, dir)
    }

    #[test]
    fn config_missing_policy_file_gives_builtin_defaults() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = PolicyConfig::load(&dir.path().join("config/policy.toml")).unwrap();
        assert_eq!(cfg, PolicyConfig::default());

        for a in [Audience::Personal, Audience::Team] {
            assert_eq!(cfg.tool_mode(a, SHELL_TOOL), Mode::Approval);
        }
        assert_eq!(cfg.tool_mode(Audience::Public, SHELL_TOOL), Mode::Deny);
        for a in Audience::ALL {
            for tool in FILE_TOOLS {
                assert_eq!(cfg.tool_mode(a, tool), Mode::Auto, "{a:?} {tool}");
                assert!(cfg.tool_allowed(a, tool));
            }
            assert_eq!(cfg.tool_mode(a, "web_fetch"), Mode::Approval);
            assert!(cfg.tool_allowed(a, SHELL_TOOL));
            assert!(cfg.file_roots(a).is_empty());
        }
        assert_eq!(
            cfg.file_modes(Audience::Personal),
            (FileMode::All, FileMode::All)
        );
        assert_eq!(
            cfg.file_modes(Audience::Team),
            (FileMode::Roots, FileMode::Roots)
        );
        assert_eq!(
            cfg.file_modes(Audience::Public),
            (FileMode::Roots, FileMode::Roots)
        );
        assert!(cfg.autonomous_read_roots().is_empty());
        assert!(cfg.protected_read().is_empty());
        assert!(cfg.protected_write().is_empty());
        assert!(cfg.hard_deny_rules().is_empty());
    }

    #[test]
    fn config_empty_policy_file_gives_builtin_defaults() {
        let (_dir, path) = write_policy("# nothing here\n");
        assert_eq!(PolicyConfig::load(&path).unwrap(), PolicyConfig::default());
    }

    #[test]
    fn config_spec_example_parses_and_resolves() {
        let (_dir, path) = write_policy(SPEC_EXAMPLE);
        let cfg = PolicyConfig::load(&path).unwrap();
        let p = Audience::Personal;
        // Per-tool mode beats default_mode.
        assert_eq!(cfg.tool_mode(p, SHELL_TOOL), Mode::Approval);
        // default_mode beats the built-in default.
        assert_eq!(cfg.tool_mode(p, "file_read"), Mode::Auto);
        assert_eq!(cfg.tool_mode(p, "web_fetch"), Mode::Auto);
        // The tools list restricts admission.
        assert!(cfg.tool_allowed(p, SHELL_TOOL));
        assert!(cfg.tool_allowed(p, "file_read"));
        assert!(cfg.tool_allowed(p, "file_write"));
        assert!(!cfg.tool_allowed(p, "file_edit"));
        assert!(!cfg.tool_allowed(p, "attach_file"));
        assert_eq!(cfg.file_modes(p), (FileMode::All, FileMode::All));
        assert_eq!(cfg.file_roots(p), vec!["~/notes".to_string()]);
        // Other audiences keep their built-ins.
        assert!(cfg.tool_allowed(Audience::Team, "file_edit"));
        assert_eq!(cfg.tool_mode(Audience::Public, SHELL_TOOL), Mode::Deny);
        assert_eq!(
            cfg.file_modes(Audience::Team),
            (FileMode::Roots, FileMode::Roots)
        );
        assert_eq!(
            cfg.autonomous_read_roots(),
            ["~/.config/agent/skills".to_string()]
        );
        assert_eq!(cfg.protected_read(), ["~/.aws".to_string()]);
        assert_eq!(cfg.protected_write(), ["~/.aws".to_string()]);
        assert_eq!(
            cfg.hard_deny_rules(),
            [HardDenyRule {
                verb: Some("docker rm".into()),
                raw: None,
                reason: "containers are managed by the platform team".into(),
            }]
        );
    }

    #[test]
    fn config_explicit_modes_are_honoured_as_written() {
        let text = r#"
[audiences.public]
default_mode = "approval"
[audiences.public.modes]
file_write = "deny"
[audiences.team.modes]
shell_execute = "auto"
[audiences.personal]
default_mode = "deny"
[audiences.team.files]
read = "all"
write = "none"
roots = ["/srv/shared", "~/team"]

[[hard_deny]]
raw = "rm -rf --no-preserve-root"
reason = "no"
"#;
        let cfg = PolicyConfig::parse(text, Path::new("/x/policy.toml")).unwrap();
        assert_eq!(cfg.tool_mode(Audience::Public, SHELL_TOOL), Mode::Approval);
        assert_eq!(cfg.tool_mode(Audience::Public, "file_read"), Mode::Approval);
        assert_eq!(cfg.tool_mode(Audience::Public, "file_write"), Mode::Deny);
        assert_eq!(cfg.tool_mode(Audience::Team, SHELL_TOOL), Mode::Auto);
        assert_eq!(cfg.tool_mode(Audience::Team, "file_read"), Mode::Auto);
        assert_eq!(cfg.tool_mode(Audience::Team, "other"), Mode::Approval);
        assert_eq!(cfg.tool_mode(Audience::Personal, SHELL_TOOL), Mode::Deny);
        assert_eq!(cfg.tool_mode(Audience::Personal, "file_list"), Mode::Deny);
        assert_eq!(
            cfg.file_modes(Audience::Team),
            (FileMode::All, FileMode::None)
        );
        assert_eq!(
            cfg.file_roots(Audience::Team),
            vec!["/srv/shared", "~/team"]
        );
        let rules = cfg.hard_deny_rules();
        assert_eq!(rules.len(), 1);
        assert_eq!(rules[0].verb, None);
        assert_eq!(rules[0].raw.as_deref(), Some("rm -rf --no-preserve-root"));
    }

    #[test]
    fn config_empty_tools_list_admits_nothing() {
        let cfg = PolicyConfig::parse("[audiences.team]\ntools = []\n", Path::new("p")).unwrap();
        assert!(!cfg.tool_allowed(Audience::Team, SHELL_TOOL));
        assert!(cfg.tool_allowed(Audience::Personal, SHELL_TOOL));
    }

    #[test]
    fn config_syntax_error_names_file_and_line() {
        let (path, err, _dir) =
            policy_err("[audiences.personal]\ndefault_mode = \"auto\"\nthis is not toml\n");
        assert!(matches!(err, ConfigError::Policy { .. }));
        assert_eq!(err.line(), Some(3));
        let msg = err.to_string();
        let prefix = format!("invalid policy file {}, line 3: ", path.display());
        assert!(msg.starts_with(&prefix), "{msg}");
    }

    #[test]
    fn config_bad_mode_names_file_line_and_choices() {
        let (path, err, _dir) =
            policy_err("# policy\n[audiences.personal]\ndefault_mode = \"sometimes\"\n");
        assert_eq!(
            err.to_string(),
            format!(
                "invalid policy file {}, line 3: unknown variant `sometimes`, \
                 expected one of `auto`, `approval`, `deny`",
                path.display()
            )
        );
        let (_p, err, _dir) = policy_err("[audiences.team.modes]\n\nshell_execute = \"yes\"\n");
        assert_eq!(err.line(), Some(3), "{err}");
        let (_p, err, _dir) = policy_err("[audiences.team.files]\nread = \"some\"\n");
        assert_eq!(err.line(), Some(2), "{err}");
        assert!(
            err.to_string()
                .contains("expected one of `all`, `roots`, `none`"),
            "{err}"
        );
    }

    #[test]
    fn config_wrong_types_and_unknown_keys_are_errors() {
        let cases: &[(&str, usize)] = &[
            ("[audiences.personal]\ntools = \"shell_execute\"\n", 2),
            ("[audiences.personal]\ndefault_mod = \"auto\"\n", 2),
            ("\n[audiences.admin]\ndefault_mode = \"auto\"\n", 2),
            ("[protect]\nread = [\"~/.aws\"]\n", 1),
            ("[protected]\nread = [\"~/.aws\"]\nwrite = \"~/.aws\"\n", 3),
            ("[autonomous]\nread_roots = [1, 2]\n", 2),
            (
                "[audiences.team.files]\nroots = [\"/a\"]\nextra = true\n",
                3,
            ),
        ];
        for (text, line) in cases {
            let (path, err, _dir) = policy_err(text);
            assert_eq!(err.line(), Some(*line), "{text:?}: {err}");
            let msg = err.to_string();
            assert!(msg.contains(&path.display().to_string()), "{msg}");
            assert!(msg.contains(&format!(", line {line}: ")), "{msg}");
        }
    }

    #[test]
    fn config_hard_deny_needs_exactly_one_of_verb_and_raw() {
        let both = "[[hard_deny]]\nverb = \"ls\"\nreason = \"ok\"\n\n[[hard_deny]]\nverb = \"docker rm\"\nraw = \"docker rm\"\nreason = \"x\"\n";
        let (path, err, _dir) = policy_err(both);
        let msg = err.to_string();
        assert!(
            msg.starts_with(&format!("invalid policy file {}, line ", path.display())),
            "{msg}"
        );
        assert!(msg.contains("not both"), "{msg}");
        let line = err.line().unwrap();
        assert_eq!(line, 5, "{msg}");

        let neither = "[[hard_deny]]\nreason = \"x\"\n";
        let (_p, err, _dir) = policy_err(neither);
        assert!(err.to_string().contains("needs `verb` or `raw`"), "{err}");
        assert!(err.line().is_some(), "{err}");

        let no_reason = "[[hard_deny]]\nverb = \"docker rm\"\n";
        let (_p, err, _dir) = policy_err(no_reason);
        assert!(err.to_string().contains("reason"), "{err}");
        assert!(err.line().is_some(), "{err}");

        let second_without_reason =
            "[[hard_deny]]\nverb = \"a\"\nreason = \"x\"\n[[hard_deny]]\nraw = \"b\"\n";
        let (_p, err, _dir) = policy_err(second_without_reason);
        assert_eq!(err.line(), Some(4), "{err}");
        assert!(err.to_string().contains("missing field `reason`"), "{err}");

        let blank = "[[hard_deny]]\nverb = \"  \"\nreason = \"x\"\n";
        let (_p, err, _dir) = policy_err(blank);
        assert!(err.to_string().contains("empty `verb`"), "{err}");

        let unknown = "[[hard_deny]]\nverb = \"a\"\nreason = \"x\"\ncategory = \"y\"\n";
        let (_p, err, _dir) = policy_err(unknown);
        assert!(err.line().is_some(), "{err}");
    }

    #[test]
    fn config_unreadable_policy_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        // A directory where the file should be cannot be read as a file.
        let err = PolicyConfig::load(dir.path()).unwrap_err();
        assert!(matches!(err, ConfigError::Read { .. }), "{err}");
        assert!(err.to_string().contains(&dir.path().display().to_string()));

        let path = dir.path().join("policy.toml");
        fs::write(&path, [b'a', b' ', b'=', b' ', 0xff, b'\n']).unwrap();
        let err = PolicyConfig::load(&path).unwrap_err();
        assert!(
            err.to_string().contains(&path.display().to_string()),
            "{err}"
        );
    }

    #[test]
    fn config_bom_is_accepted() {
        let cfg =
            PolicyConfig::parse("\u{feff}[protected]\nread = [\"/x\"]\n", Path::new("p")).unwrap();
        assert_eq!(cfg.protected_read(), ["/x".to_string()]);
    }

    #[test]
    fn config_expand_home() {
        assert_eq!(expand_home("~", "/home/u"), "/home/u");
        assert_eq!(expand_home("~/", "/home/u"), "/home/u");
        assert_eq!(expand_home("~/notes", "/home/u"), "/home/u/notes");
        assert_eq!(expand_home("~/notes", "/home/u/"), "/home/u/notes");
        assert_eq!(expand_home("~/x", "/"), "/x");
        assert_eq!(expand_home("~\\x", "C:\\Users\\u\\"), "C:\\Users\\u\\x");
        assert_eq!(expand_home("~user/x", "/home/u"), "~user/x");
        assert_eq!(expand_home("/etc/~/x", "/home/u"), "/etc/~/x");
        assert_eq!(expand_home("notes", "/home/u"), "notes");
    }

    fn write_verbs(text: &str) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("safe-verbs.linux.json");
        fs::write(&path, text).unwrap();
        (dir, path)
    }

    #[test]
    fn config_safe_verbs_missing_file_is_empty() {
        let dir = tempfile::tempdir().unwrap();
        let verbs = load_user_safe_verbs(&dir.path().join("safe-verbs.linux.json")).unwrap();
        assert!(verbs.is_empty());
    }

    #[test]
    fn config_safe_verbs_array_form() {
        let (_dir, path) = write_verbs(r#"[" jq ", "git stash list", "", "   ", "jq"]"#);
        assert_eq!(
            load_user_safe_verbs(&path).unwrap(),
            vec!["jq", "git stash list"]
        );
    }

    #[test]
    fn config_safe_verbs_object_form() {
        let (_dir, path) = write_verbs("\u{feff}{\n  \"verbs\": [\"bat\", \"\\tfd \"]\n}\n");
        assert_eq!(load_user_safe_verbs(&path).unwrap(), vec!["bat", "fd"]);
        let (_dir, path) = write_verbs("[]");
        assert!(load_user_safe_verbs(&path).unwrap().is_empty());
    }

    #[test]
    fn config_safe_verbs_malformed_names_file() {
        let cases = [
            "[\"jq\",\n \"bat\"",
            "[\"jq\", 3]",
            "{\"verb\": [\"jq\"]}",
            "{\"verbs\": \"jq\"}",
            "\"jq\"",
            "jq",
            "",
            "  \n",
            "{}",
            "[\"jq\"] trailing",
        ];
        for text in cases {
            let (_dir, path) = write_verbs(text);
            let err = load_user_safe_verbs(&path).unwrap_err();
            assert!(
                matches!(err, ConfigError::SafeVerbs { .. }),
                "{text:?}: {err}"
            );
            let msg = err.to_string();
            let prefix = format!("invalid safe-verb file {}", path.display());
            assert!(msg.starts_with(&prefix), "{text:?}: {msg}");
        }
        let (_dir, path) = write_verbs("[\"jq\",\n\n 7]");
        let err = load_user_safe_verbs(&path).unwrap_err();
        assert_eq!(err.line(), Some(3), "{err}");
    }
}
