//! Validators for program text a read-only form may carry: sed scripts,
//! awk programs, jq filters. Each accepts only text it fully understands
//! as printing to standard output; anything else is refused (allow-list).

mod awk;
mod jq;
mod sed;
pub use awk::awk;
pub use jq::{jq, yq};
pub use sed::{sed, sed_commands};

/// What the caller knows of the world a validator cannot see (the
/// programs crate does no I/O): the policy answers from the repository.
#[derive(Clone, Copy)]
pub struct Facts<'a> {
    /// Whether an abbreviated object id (4–40 hex digits) names commits
    /// only in the repository the call opens.
    pub commits: &'a dyn Fn(&str) -> bool,
}

fn knows_nothing(_: &str) -> bool {
    false
}

impl Facts<'static> {
    /// Nothing known: every question answered "no".
    pub const NONE: Facts<'static> = Facts {
        commits: &knows_nothing,
    };
}

/// Run the validator named by a spec slot.
pub fn run(name: &str, text: &str) -> Result<(), String> {
    run_in(name, text, &Facts::NONE)
}

/// [`run`], with what the caller knows.
pub fn run_in(name: &str, text: &str, facts: &Facts) -> Result<(), String> {
    match name {
        "sed" => sed(text),
        "awk" => awk(text),
        "jq" => jq(text),
        "yq" => yq(text),
        "remote" => remote_name(text),
        "date" => date_format(text),
        "refspec" => refspec(text),
        "pkgspec" => pkgspec(text),
        "localrev" => local_rev(text),
        "commitrev" => commit_rev(text, facts),
        "configkey" => config_key(text),
        "psformat" => ps_format(text),
        "psown" => ps_own_format(text),
        "psbsd" => ps_bsd(text),
        "envname" => env_name(text),
        "gitconfig" => git_config_setting(text),
        "never" => never(text),
        "dockerfmt" => docker_format(text),
        "gitformat" => git_format(text),
        "sysctlname" => sysctl_name(text),
        "msbuild" => msbuild_operand(text),
        "sbt" => sbt_command(text),
        "k8starget" => k8s_target(text),
        "none" => Err("program text is never read-only here".into()),
        _ => Err(format!("no validator named {name}")),
    }
}

/// A `kubectl debug` target that is a pod, not a node: `kubectl debug
/// node/N` runs a pod in the node's host namespaces with its root file
/// system mounted (rt26b F11), which a grant for debugging pods must not
/// cover.
fn k8s_target(text: &str) -> Result<(), String> {
    let kind = text.split('/').next().unwrap_or("").to_ascii_lowercase();
    if text.contains('/') && matches!(kind.as_str(), "node" | "nodes" | "no") {
        return Err("a node target runs in the node's host namespaces".into());
    }
    Ok(())
}

/// Sections of git configuration whose keys hold settings, never
/// credentials: `git config KEY` reads the global and system files too
/// (`~/.gitconfig`), where `github.token`, `credential.*`,
/// `http.extraheader` or a token inside a `url.*.insteadof` key may live.
/// Not `alias` (a command line may carry a token) nor `submodule` (URLs
/// with credentials, rt14 F5). `remote.NAME.url` stays: `git remote -v`
/// and `git remote get-url` print the same URLs from the same scopes.
const CONFIG_SECTIONS: &[&str] = &[
    "user",
    "core",
    "init",
    "pull",
    "push",
    "branch",
    "remote",
    "merge",
    "rebase",
    "diff",
    "color",
    "commit",
    "tag",
    "log",
    "fetch",
    "status",
    "advice",
    "safe",
    "gc",
    "help",
    "format",
    "column",
    "blame",
    "grep",
    "index",
    "pack",
    "rerere",
    "worktree",
    "am",
    "apply",
    "checkout",
    "clone",
    "feature",
    "maintenance",
    "protocol",
    "transfer",
    "receive",
    "uploadpack",
    "pretty",
    "i18n",
    "gui",
    "instaweb",
    "mergetool",
    "difftool",
];

/// A git configuration key (`section.name`, `section.sub.name`) that
/// names a setting: never a word without a dot, which git 2.46+ reads as
/// a subcommand of `git config` (`edit` runs the editor, `list` prints
/// every scope), and only keys of [`CONFIG_SECTIONS`] with no
/// credential-like word in them (rt13 F2: `git config github.token`
/// printed a token from `~/.gitconfig`).
pub fn config_key(text: &str) -> Result<(), String> {
    let (section, name) = text
        .split_once('.')
        .ok_or_else(|| format!("`{text}` is not a configuration key (no section)"))?;
    if section.is_empty() || name.is_empty() || text.starts_with('-') || name.ends_with('.') {
        return Err(format!("`{text}` is not a configuration key"));
    }
    let lower = text.to_ascii_lowercase();
    let section = section.to_ascii_lowercase();
    const CREDENTIAL: &[&str] = &[
        "token", "pass", "secret", "auth", "cred", "header", "cookie", "key", "bearer", "private",
    ];
    // Inside the allowed sections, values that carry a URL, a proxy or a
    // command line may carry `user:password@` or `sshpass -p` (rt15 F2:
    // `git config remote.origin.proxy` printed a proxy password): only a
    // remote's own `url`/`pushurl`, which `git remote -v` prints anyway.
    let (sub, var) = match lower[section.len() + 1..].rsplit_once('.') {
        Some((sub, var)) => (sub, var),
        None => ("", &lower[section.len() + 1..]),
    };
    let remote_url = section == "remote" && !sub.is_empty() && matches!(var, "url" | "pushurl");
    // A branch's `remote`/`pushRemote` may be a URL; `fetch.bundleURI`,
    // `remote.*.serverOption` and `receive.certNonceSeed` carry tokens or
    // secrets (rt16 F5).
    let branch_ok = section != "branch" || matches!(var, "merge" | "rebase" | "description");
    let carrier = !branch_ok
        || var.contains("url")
        || var.contains("uri")
        || var.contains("seed")
        || var.contains("option")
        || var.contains("proxy")
        || var.ends_with("command")
        || var.ends_with("cmd")
        || sub.contains("://")
        || sub.contains('@');
    if !CONFIG_SECTIONS.contains(&section.as_str())
        || CREDENTIAL.iter().any(|w| lower.contains(w))
        || (carrier && !remote_url)
    {
        return Err(format!(
            "`{text}` may hold a credential in the global or system configuration"
        ));
    }
    Ok(())
}

/// A `git -c NAME[=VALUE]` setting that only changes how output looks
/// (`core.quotepath=off`, `color.ui=never`, `advice.detachedHead=false`,
/// `log.showSignature=false`): never a key that names a program, a hook,
/// a pager, a filter, an alias, a URL or a credential. Keys are compared
/// without case, as git does for the section and the name.
pub fn git_config_setting(text: &str) -> Result<(), String> {
    let (key, value) = text.split_once('=').unwrap_or((text, "true"));
    let key = key.to_ascii_lowercase();
    let value_plain = value
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ' ' | ','));
    let (section, rest) = key.split_once('.').unwrap_or((key.as_str(), ""));
    let display = match section {
        // Colors and column layout: colour names, attributes, booleans.
        "color" | "column" => !rest.is_empty(),
        "advice" => !rest.is_empty() && !rest.contains('.'),
        "core" => matches!(rest, "quotepath" | "abbrev" | "safecrlf" | "autocrlf"),
        "log" => {
            matches!(
                rest,
                "decorate" | "date" | "abbrevcommit" | "follow" | "mailmap"
            ) || (rest == "showsignature" && matches!(value, "false" | "no" | "off" | "0"))
        }
        "diff" => matches!(
            rest,
            "noprefix" | "mnemonicprefix" | "renames" | "relative" | "statgraphwidth"
        ),
        "status" => matches!(
            rest,
            "short" | "branch" | "showuntrackedfiles" | "relativepaths" | "aheadbehind"
        ),
        "i18n" => matches!(rest, "logoutputencoding" | "commitencoding"),
        "init" => rest == "defaultbranch",
        // Never `pager.*`, `alias.*`, `core.pager`, filters, hooks, URLs.
        _ => false,
    };
    if display && value_plain {
        Ok(())
    } else {
        Err(format!("`{text}` is not a display setting"))
    }
}

/// Environment variables that name locations, the locale, the terminal
/// or toolchain homes: printing one shows no credential (`printenv PATH`).
/// Proxies are left out (a proxy URL may carry a password).
const ENV_NAMES: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "PWD",
    "OLDPWD",
    "TERM",
    "LANG",
    "LANGUAGE",
    "TZ",
    "TMPDIR",
    "HOSTNAME",
    "SHLVL",
    "EDITOR",
    "VISUAL",
    "PAGER",
    "MANPATH",
    "DISPLAY",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_CACHE_HOME",
    "XDG_STATE_HOME",
    "XDG_RUNTIME_DIR",
    "GOPATH",
    "GOROOT",
    "GOBIN",
    "GOOS",
    "GOARCH",
    "GOCACHE",
    "GOMODCACHE",
    "JAVA_HOME",
    "GRADLE_USER_HOME",
    "MAVEN_HOME",
    "M2_HOME",
    "ANDROID_HOME",
    "ANDROID_SDK_ROOT",
    "CARGO_HOME",
    "RUSTUP_HOME",
    "RUSTUP_TOOLCHAIN",
    "VIRTUAL_ENV",
    "CONDA_PREFIX",
    "CONDA_DEFAULT_ENV",
    "PYENV_ROOT",
    "PYENV_VERSION",
    "NVM_DIR",
    "NODE_ENV",
    "NODE_PATH",
    "PYTHONPATH",
    "CC",
    "CXX",
    "CFLAGS",
    "CXXFLAGS",
    "LDFLAGS",
    "PKG_CONFIG_PATH",
    "LD_LIBRARY_PATH",
    "CMAKE_PREFIX_PATH",
    "KUBECONFIG",
    "DOCKER_HOST",
    "CI",
    "GITHUB_ACTIONS",
    "GITHUB_WORKSPACE",
    "GITHUB_REF",
    "GITHUB_SHA",
    "GITHUB_REPOSITORY",
    "RUNNER_OS",
    "COLUMNS",
    "LINES",
];

/// A variable name of [`ENV_NAMES`] or a locale name (`LC_ALL`): one that
/// configures where things are, never a credential.
pub fn benign_env_name(text: &str) -> bool {
    env_name(text).is_ok()
}

/// The value `never` only (`bat --paging=never`: any other choice may
/// start a pager, a program that reads the terminal and can run commands).
pub fn never(text: &str) -> Result<(), String> {
    if text == "never" {
        Ok(())
    } else {
        Err(format!("`{text}` may start another program"))
    }
}

/// An environment variable name of [`ENV_NAMES`] or a locale name
/// (`LC_ALL`, `LC_CTYPE`).
pub fn env_name(text: &str) -> Result<(), String> {
    let locale = text.starts_with("LC_")
        && text.len() > 3
        && text[3..]
            .chars()
            .all(|c| c.is_ascii_uppercase() || c == '_');
    if ENV_NAMES.contains(&text) || locale {
        Ok(())
    } else {
        Err(format!("`{text}` may hold a credential"))
    }
}

/// Output columns of procps `ps` that show a process's name, ids,
/// owner, state, times or sizes: never its arguments (`args`, `cmd`,
/// `command`) or environment.
const PS_NAME_KEYS: &[&str] = &[
    "pid",
    "ppid",
    "pgid",
    "pgrp",
    "sid",
    "sess",
    "tid",
    "lwp",
    "spid",
    "nlwp",
    "uid",
    "euid",
    "ruid",
    "suid",
    "fsuid",
    "user",
    "euser",
    "ruser",
    "uname",
    "gid",
    "egid",
    "group",
    "egroup",
    "rgid",
    "rgroup",
    "comm",
    "ucomm",
    "ucmd",
    "fname",
    "stat",
    "state",
    "s",
    "tty",
    "tt",
    "tname",
    "time",
    "cputime",
    "cputimes",
    "etime",
    "etimes",
    "start",
    "start_time",
    "stime",
    "lstart",
    "bsdstart",
    "%cpu",
    "pcpu",
    "%mem",
    "pmem",
    "rss",
    "rssize",
    "rsz",
    "vsz",
    "vsize",
    "sz",
    "ni",
    "nice",
    "pri",
    "priority",
    "psr",
    "wchan",
    "f",
    "flags",
    "c",
    "cls",
    "class",
    "rtprio",
    "policy",
    "sched",
    "nwchan",
];

/// A `-o` format for the caller's own processes: name columns and their
/// command lines, never their environment (`environ`: the agent's
/// tokens, rt28c F4).
pub fn ps_own_format(text: &str) -> Result<(), String> {
    const OWN: &[&str] = &["args", "cmd", "command", "ucmd", "ucomm", "comm", "exe"];
    ps_columns(text, |k| PS_NAME_KEYS.contains(&k) || OWN.contains(&k))
        .map_err(|item| format!("`{item}` is not a column of the caller's own processes"))
}

/// Every comma- or blank-separated item of a `ps -o` format is `KEY` or
/// `KEY=HEADER` with a plain header and a KEY `allowed` takes; `Err` names
/// the first item that is not (or is the empty format).
fn ps_columns(text: &str, allowed: impl Fn(&str) -> bool) -> Result<(), String> {
    let mut any = false;
    for item in text.split([',', ' ']).filter(|i| !i.is_empty()) {
        let (key, header) = item.split_once('=').unwrap_or((item, ""));
        let plain = header
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '%'));
        if !allowed(key) || !plain {
            return Err(item.to_string());
        }
        any = true;
    }
    if any {
        Ok(())
    } else {
        Err(String::new())
    }
}

/// A `ps -o` format of name columns only (`pid,user,%cpu,comm`,
/// `pid=PID,comm=NAME`). procps 4 ends a header at the next comma and
/// older versions at the end of the word, so a word passes only when
/// both readings name listed keys: every comma- or blank-separated item
/// is `KEY` or `KEY=HEADER` with a plain header.
pub fn ps_format(text: &str) -> Result<(), String> {
    ps_columns(text, |k| PS_NAME_KEYS.contains(&k)).map_err(|item| {
        if item.is_empty() {
            "an empty ps format".to_string()
        } else {
            format!("`{item}` is not a name-only ps column")
        }
    })
}

/// Fields of `docker ps`, `docker images` and `docker system df` rows that
/// name, size, date or place a container or image: never its command line
/// (`.Command`), labels (`.Labels`, `.Label`) or mounts, where a
/// credential passed on a command line or label would show.
const DOCKER_FIELDS: &[&str] = &[
    "ID",
    "Names",
    "Image",
    "CreatedAt",
    "CreatedSince",
    "RunningFor",
    "Ports",
    "State",
    "Status",
    "Size",
    "Networks",
    "LocalVolumes",
    "Repository",
    "Tag",
    "Digest",
    "Containers",
    "SharedSize",
    "UniqueSize",
    "VirtualSize",
    "Type",
    "TotalCount",
    "Active",
    "Reclaimable",
    "Name",
    "Driver",
    "Scope",
];

/// A docker `--format` Go template made only of literal text and
/// `{{.Field}}` actions of [`DOCKER_FIELDS`], optionally after `table`:
/// no function (`{{json .}}` prints every field), no other field, not the
/// `json` shorthand.
pub fn docker_format(text: &str) -> Result<(), String> {
    let body = text.strip_prefix("table").map_or(text, |rest| {
        if rest.starts_with(char::is_whitespace) {
            rest
        } else {
            text
        }
    });
    let mut rest = body;
    let mut any = false;
    while let Some(at) = rest.find("{{") {
        let after = &rest[at + 2..];
        let Some(end) = after.find("}}") else {
            return Err("an unclosed template action".into());
        };
        let action = after[..end].trim();
        let field = action.strip_prefix('.').unwrap_or("");
        if !DOCKER_FIELDS.contains(&field) {
            return Err(format!("`{{{{{action}}}}}` is not a name or state field"));
        }
        any = true;
        rest = &after[end + 2..];
    }
    if rest.contains("}}") || !any {
        return Err(format!("`{text}` is not a field template"));
    }
    Ok(())
}

/// A kernel parameter name `sysctl` reads (`fs.file-max`, `kernel/ostype`):
/// never `NAME=VALUE`, which sets it.
pub fn sysctl_name(text: &str) -> Result<(), String> {
    let plain = !text.is_empty()
        && !text.starts_with('-')
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '/'));
    if !plain {
        return Err(format!("`{text}` is not a parameter name"));
    }
    // The kernel's secrets among its parameters (root-only files, printed
    // to root: rt17 F6), and every name above them (`sysctl net.ipv4`
    // prints the whole subtree).
    let name = text.replace('/', ".");
    let name = name.trim_matches('.');
    const SECRETS: &[&str] = &["net.ipv4.tcp_fastopen_key", "net.ipv6.conf.*.stable_secret"];
    let above = |secret: &str| {
        let (mut a, mut b) = (name.split('.'), secret.split('.'));
        loop {
            match (a.next(), b.next()) {
                (None, _) => return true,
                (Some(_), None) => return false,
                (Some(x), Some(y)) if x == y || y == "*" => continue,
                _ => return false,
            }
        }
    };
    if name.contains("fastopen_key")
        || name.contains("stable_secret")
        || SECRETS.iter().any(|s| above(s))
    {
        return Err(format!("`{text}` prints a kernel secret"));
    }
    Ok(())
}

/// A BSD-style `ps` word that lists only the caller's own processes
/// (`ux`, `x`, `uxf`): no `a` (every user's), no `e` (environments), no
/// letter that takes a value.
pub fn ps_bsd(text: &str) -> Result<(), String> {
    if !text.is_empty() && text.chars().all(|c| "uxfwjlvshrcSn".contains(c)) {
        Ok(())
    } else {
        Err(format!("`{text}` is not an own-process BSD ps word"))
    }
}

/// A `date` operand that only formats (`+%F`), never one that sets the
/// clock (`MMDDhhmm`).
pub fn date_format(text: &str) -> Result<(), String> {
    if text.starts_with('+') {
        Ok(())
    } else {
        Err(format!("`{text}` would set the clock"))
    }
}

/// A package named from the configured registry (`lodash`,
/// `lodash@^4`, `@types/node`, `requests==2.31`, `black[jupyter]`), never
/// another source: a URL or VCS spec (`git+…`, `github:…`, `file:…`), a
/// path, or an archive (SPEC §15.16).
pub fn pkgspec(text: &str) -> Result<(), String> {
    let t = text.to_ascii_lowercase();
    let archive = [
        ".tgz", ".tar.gz", ".tar", ".zip", ".whl", ".egg", ".gem", ".crate", ".tar.bz2", ".tar.xz",
    ]
    .iter()
    .any(|e| t.ends_with(e));
    let name_part = t
        .split(['@', '=', '<', '>', '~', '!', '[', ';', ' '])
        .find(|p| !p.is_empty())
        .unwrap_or("");
    let scoped = t.starts_with('@');
    let slash_ok = if scoped {
        // `@scope/name[@version]`: exactly one `/`, inside the name.
        let body = &t[1..];
        let name = body.split('@').next().unwrap_or("");
        name.matches('/').count() == 1 && !body[name.len()..].contains('/')
    } else {
        !t.contains('/')
    };
    let ok = !t.is_empty()
        && !t.contains(':')
        && !t.starts_with(['.', '/', '~', '-', '\\'])
        && slash_ok
        && !archive
        && !name_part.is_empty();
    if ok {
        Ok(())
    } else {
        Err(format!("`{text}` names another package source"))
    }
}

/// A `git log --format`/`for-each-ref --format` template that prints
/// without running anything: no `%G…` placeholder (signature checks run
/// gpg or gpgsm, which start agents and fetch the CRLs a certificate names,
/// rt17 F1) and no `%(signature…)` atom.
pub fn git_format(text: &str) -> Result<(), String> {
    if text.contains("%G") || text.contains("%(signature") {
        Err(format!("`{text}` checks signatures (runs gpg)"))
    } else {
        Ok(())
    }
}

/// A revision of the project's own history, not whatever was last fetched
/// from anywhere (`FETCH_HEAD` may hold another repository's commits, whose
/// files land in the working tree).
pub fn local_rev(text: &str) -> Result<(), String> {
    if text.starts_with("FETCH_HEAD") {
        Err("FETCH_HEAD holds commits fetched from anywhere".into())
    } else {
        Ok(())
    }
}

/// A revision that names commits by a ref (`HEAD~1`, `main..topic`,
/// `v1.2`), or by an object id the repository holds only as commits
/// (`facts.commits`): `git show 8678f97` or `git diff <id> <id>` print a
/// blob's content when the id is a file's (one `git ls-files -s .env` away),
/// and no path is there to check.
pub fn commit_rev(text: &str, facts: &Facts) -> Result<(), String> {
    local_rev(text)?;
    let hex = |t: &str| t.len() >= 4 && t.bytes().all(|b| b.is_ascii_hexdigit());
    // An id git reads from the word: the whole word, or the hex after a
    // last `-g` (`git describe`'s `v1.2-3-g8678f97`, any prefix: rt18 F1,
    // `git show x-ge452c8d9` printed a blob).
    let bare_id = |t: &str| {
        let described = t.rfind("-g").map(|i| &t[i + 2..]).filter(|h| hex(h));
        [Some(t).filter(|t| hex(t)), described]
            .into_iter()
            .flatten()
            .any(|id| !(facts.commits)(id))
    };
    let peeled = text.contains("^{");
    let sides = text.split("..").map(|t| t.trim_start_matches('.'));
    if peeled
        || sides
            .into_iter()
            .any(|t| bare_id(t.trim_start_matches('^')))
    {
        Err(format!(
            "`{text}` may name a file's content by its object id"
        ))
    } else {
        Ok(())
    }
}

/// An operand of `dotnet build`/`dotnet test` that names a project,
/// solution, directory or assembly, never what the dotnet CLI hands on to
/// MSBuild or the test platform: a switch (`/p:RestoreSources=URL`,
/// `/t:Publish`, `/restore`), a response file (`@x.rsp`), or a
/// `NAME=VALUE` run setting after `--` (`RunConfiguration.TestAdaptersPaths=…`
/// loads assemblies).
pub fn msbuild_operand(text: &str) -> Result<(), String> {
    let switch = text.strip_prefix('/').is_some_and(|rest| {
        let name = rest.split(':').next().unwrap_or("");
        !name.is_empty() && name.chars().all(|c| c.is_ascii_alphabetic())
    });
    if text.is_empty() || text.starts_with(['@', '-']) || text.contains('=') || switch {
        Err(format!(
            "`{text}` is handed on to MSBuild or the test platform"
        ))
    } else {
        Ok(())
    }
}

/// sbt commands that compile, test, check formatting or package the
/// project (`test`, `core/Test/compile`, `testOnly a.B -- -z x`, `; clean ;
/// test`): never `eval`/`set`/`console` (Scala code or a REPL),
/// `publish`, `reload`, `++VERSION` (another Scala version), `~test` (runs
/// until stopped) or a plugin loaded from a file.
pub fn sbt_command(text: &str) -> Result<(), String> {
    const TASKS: &[&str] = &[
        "compile",
        "test",
        "testOnly",
        "testQuick",
        "testFull",
        "clean",
        "package",
        "doc",
        "scalafmtCheck",
        "scalafmtCheckAll",
        "scalafmtSbtCheck",
        "scalafmt",
        "scalafmtAll",
        "scalafmtSbt",
        "headerCheck",
        "headerCheckAll",
        "scalastyle",
        "coverage",
        "coverageOff",
        "coverageReport",
        "coverageAggregate",
    ];
    /// Tasks whose arguments name tests (and the framework's options).
    const WITH_ARGS: &[&str] = &["testOnly", "testQuick"];
    let ident = |s: &str| {
        s.starts_with(|c: char| c.is_ascii_alphanumeric())
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
    };
    let mut any = false;
    for part in text.split(';') {
        let part = part.trim();
        if part.is_empty() {
            continue;
        }
        any = true;
        let (head, args) = match part.split_once(char::is_whitespace) {
            Some((h, a)) => (h, a.trim()),
            None => (part, ""),
        };
        // `[project/][Config/]task`, the old `config:task` too.
        let segs: Vec<&str> = head.split(['/', ':']).collect();
        let Some((task, scope)) = segs.split_last() else {
            return Err(format!("`{part}` is not an sbt command"));
        };
        let known = TASKS.contains(task) && scope.iter().all(|s| ident(s));
        if !known || (!args.is_empty() && !WITH_ARGS.contains(task)) {
            return Err(format!("`{part}` is not a build or test command of sbt"));
        }
    }
    if any {
        Ok(())
    } else {
        Err("an empty sbt command".into())
    }
}

/// A configured remote's name: never a URL, `host:path` or a path.
pub fn remote_name(text: &str) -> Result<(), String> {
    let ok = !text.is_empty()
        && !text.starts_with(['-', '.'])
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if ok {
        Ok(())
    } else {
        Err(format!("`{text}` is not a remote name"))
    }
}

/// A refspec that neither forces (`+`) nor names another destination (`a:b`).
pub fn refspec(text: &str) -> Result<(), String> {
    // `refs/heads/*` pushes every branch, like `--all`.
    if text.starts_with('+')
        || text.contains(':')
        || text.starts_with('-')
        || text.contains(['*', '?', '['])
    {
        Err(format!("refspec `{text}` forces or renames"))
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn package_specs() {
        for ok in [
            "lodash",
            "lodash@^4.17",
            "@types/node",
            "@types/node@20",
            "requests==2.31",
            "black[jupyter]",
            "numpy>=1.26",
            "typescript@latest",
        ] {
            assert!(pkgspec(ok).is_ok(), "{ok}");
        }
        for bad in [
            "git+https://x/y",
            "github:o/r",
            "file:../x",
            "../lib",
            "./x.tgz",
            "/tmp/p.whl",
            "https://e.x/p.tar.gz",
            "o/r",
            "x.whl",
            "@s/n/x",
        ] {
            assert!(pkgspec(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn msbuild_operands() {
        for ok in [
            "App.csproj",
            "src/App/App.csproj",
            "x.sln",
            ".",
            "/home/u/p/x.csproj",
            "bin/Debug/net8.0/T.dll",
        ] {
            assert!(msbuild_operand(ok).is_ok(), "{ok}");
        }
        for bad in [
            "/p:RestoreSources=https://evil.example/x",
            "/t:Publish",
            "/restore",
            "@x.rsp",
            "RunConfiguration.TestAdaptersPaths=/tmp/x",
            "-p:X=1",
            "",
        ] {
            assert!(msbuild_operand(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn sbt_commands() {
        for ok in [
            "test",
            "compile",
            "Test/compile",
            "core/test",
            "core/Test/compile",
            "test:compile",
            "testOnly com.x.FooSpec -- -z bar",
            "; clean ; test",
            "scalafmtCheckAll",
        ] {
            assert!(sbt_command(ok).is_ok(), "{ok}");
        }
        for bad in [
            "publish",
            "publishLocal",
            "eval sys.exit(1)",
            "set every version := \"x\"",
            "console",
            "~test",
            "++2.13.12 test",
            "+test",
            "reload plugins",
            "test; publish",
            "compile extra",
            "run",
            "",
            ";",
            "core/../test",
        ] {
            assert!(sbt_command(bad).is_err(), "{bad}");
        }
    }
}
