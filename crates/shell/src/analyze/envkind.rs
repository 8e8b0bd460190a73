//! Environment names (SPEC §3.4, §15.4, §15.14): which assignments choose
//! the code or configuration of what runs (code-selecting), which change
//! nothing a gate cares about (inert), and the rest (other).

/// What an assignment `NAME=VALUE` means for the command it prefixes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EnvKind {
    /// Chooses code or configuration: the call is complex (unless the
    /// exception of §15.14 applies to its value).
    CodeSelecting,
    /// Judged as if the assignment were absent.
    Inert,
    /// Covered by a grant only for programs whose grant already runs
    /// project code (build, test, task runners, package managers).
    Other,
}

/// Names whose assignment is never excused by its value (§3.4, §15.4).
fn always_code(name: &str) -> bool {
    const EXACT: &[&str] = &[
        "PATH",
        "HOME",
        "BASH_ENV",
        "ENV",
        "IFS",
        "PROMPT_COMMAND",
        "SHELLOPTS",
        "BASHOPTS",
        "PS4",
        "PAGER",
        "EDITOR",
        "VISUAL",
        "CDPATH",
        "ZDOTDIR",
        "RIPGREP_CONFIG_PATH",
        "LESSOPEN",
        "LESSCLOSE",
        "MANPAGER",
        "BROWSER",
        "GLOBIGNORE",
        "BASH_XTRACEFD",
    ];
    const NAMED: &[&str] = &[
        "VISUAL",
        "SHELLOPTS",
        "BASHOPTS",
        "PS4",
        "PROMPT_COMMAND",
        "NODE_OPTIONS",
        "PYTHONPATH",
        "PYTHONSTARTUP",
        "PYTHONHOME",
        "PERL5OPT",
        "PERL5LIB",
        "RUBYOPT",
        "RUBYLIB",
        "RUSTC_WRAPPER",
        "NODE_PATH",
        "SSH_ASKPASS",
        "SUDO_ASKPASS",
    ];
    EXACT.contains(&name)
        || NAMED.contains(&name)
        || name.starts_with("LD_")
        || name.starts_with("DYLD_")
        || name.starts_with("GIT_")
        || name.starts_with("XDG_")
        || name.starts_with("BASH_FUNC_")
        || name.ends_with("_COMMAND")
        || name.ends_with("PATH")
        || name.contains("_CONFIG")
}

/// Variables naming one program (a compiler or tool) that may be set to a
/// bare program name from `PATH` (`CC=clang`).
fn program_variable(name: &str) -> bool {
    const NAMES: &[&str] = &[
        "CC", "CXX", "CPP", "LD", "AR", "AS", "FC", "NM", "RANLIB", "STRIP", "OBJCOPY", "OBJDUMP",
        "F77", "F90", "HOSTCC", "HOSTCXX",
    ];
    NAMES.contains(&name)
}

/// Built-in inert names (§15.4, §15.14).
fn inert_builtin(name: &str) -> bool {
    const EXACT: &[&str] = &[
        "LANG",
        "LANGUAGE",
        "TZ",
        "TERM",
        "NO_COLOR",
        "FORCE_COLOR",
        "COLUMNS",
        "LINES",
        "CI",
        "DEBUG",
        "VERBOSE",
        "RUST_LOG",
        "RUST_BACKTRACE",
        "NODE_ENV",
        "GOOS",
        "GOARCH",
        "CGO_ENABLED",
        "PORT",
        "AWS_PROFILE",
        "AWS_REGION",
        "AWS_DEFAULT_REGION",
        "TF_LOG",
        "TF_IN_AUTOMATION",
        "COLORTERM",
        "CLICOLOR",
        "CLICOLOR_FORCE",
        "PYTHONUNBUFFERED",
        "PYTHONDONTWRITEBYTECODE",
        "GOMAXPROCS",
        "RUST_MIN_STACK",
        "NO_PROXY",
    ];
    EXACT.contains(&name) || name.starts_with("LC_") || name.starts_with("CLICOLOR")
}

/// Code-selecting by shape (§15.14).
fn code_by_shape(name: &str) -> bool {
    const EXACT: &[&str] = &[
        "TAR_OPTIONS",
        "ZIPOPT",
        "UNZIP",
        "RSYNC_RSH",
        "MAKEFLAGS",
        "MFLAGS",
        "MAKEFILES",
        "KUBECONFIG",
        "CURL_HOME",
        "WGETRC",
        "RUSTFLAGS",
        "RUSTDOCFLAGS",
        "CC",
        "CXX",
        "CPP",
        "LD",
        "AR",
        "AS",
        "FC",
        "NM",
        "RANLIB",
        "STRIP",
        "OBJCOPY",
        "GOFLAGS",
        "GOPROXY",
        "GOTOOLCHAIN",
        "GOROOT",
        "GOPATH",
        "GOINSECURE",
        "GONOSUMDB",
        "GONOSUMCHECK",
        "GOSUMDB",
        "GOPRIVATE",
        "GONOPROXY",
        "GOEXPERIMENT",
        "GCONV_PATH",
        "PERLLIB",
        "SSH_ASKPASS",
        "SUDO_ASKPASS",
        "DOCKER_HOST",
        "DOCKER_CONFIG",
        "DOCKER_CONTEXT",
        "NPM_TOKEN",
        "CONFIG_SITE",
        "HOSTALIASES",
        "LOCPATH",
        "NLSPATH",
        "MALLOC_CONF",
        "OPENSSL_CONF",
        "SSL_CERT_FILE",
        "SSL_CERT_DIR",
        "REQUESTS_CA_BUNDLE",
        "CURL_CA_BUNDLE",
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "http_proxy",
        "https_proxy",
        "all_proxy",
        "NODE_EXTRA_CA_CERTS",
        "TERMINFO",
        "TERMINFO_DIRS",
        "INPUTRC",
        "GNUPGHOME",
        "SHELL",
        // rt26b F12: Go's GOAUTH runs a command for every module fetch,
        // GOVCS chooses the version-control tools; rustup's toolchain (a
        // path, or one installed from another server) is the compiler.
        "GOAUTH",
        "GOVCS",
        "RUSTUP_TOOLCHAIN",
        "RUSTUP_DIST_SERVER",
        "RUSTUP_UPDATE_ROOT",
        // rt26b F6/F12: the host a client talks to and signs requests
        // for, like the option it mirrors (`--hostname`, `--endpoint-url`,
        // `--kube-context` are scopes): never inert by their `_HOST`/`_URL`
        // suffix.
        "GH_HOST",
        "GITHUB_API_URL",
        "GITLAB_HOST",
        "GLAB_HOST",
        "KUBECONTEXT",
    ];
    let upper = name.to_ascii_uppercase();
    EXACT.contains(&name)
        // make reads every variable of its environment: MAKEOVERRIDES
        // carries assignments to sub-makes (`X!=CMD`, rt11 F3), and its
        // special variables start with a dot.
        || name.starts_with("MAKE")
        || name.contains("ENDPOINT")
        || name.starts_with("HELM_KUBE")
        || name.starts_with("RUSTUP_")
        || name == "GNUMAKEFLAGS"
        || name.starts_with('.')
        || upper.starts_with("NPM_CONFIG_")
        || upper.starts_with("YARN_")
        || upper.starts_with("PNPM_")
        || name.starts_with("PIP_")
        || name.starts_with("UV_")
        || name.starts_with("CARGO_")
        || name.starts_with("RUSTC")
        || name.starts_with("PERL5")
        || name.starts_with("PYTHON")
        || name.starts_with("RUBY")
        || name.starts_with("GEM_")
        || name.starts_with("BUNDLE_")
        || name.starts_with("JAVA_")
        || name.starts_with("MAVEN_")
        || name.starts_with("GRADLE_")
        || name.starts_with("CLASSPATH")
        || (name.starts_with("NODE_") && name != "NODE_ENV")
        || name.starts_with("DENO_")
        || name.starts_with("BUN_")
        || name.starts_with("CONDA")
        || name.starts_with("VIRTUAL_ENV")
        || name.ends_with("FLAGS")
        || name.ends_with("_OPTS")
        || name.ends_with("_OPTIONS")
        || name.ends_with("_HOME")
        || name.ends_with("PATH")
        || name.contains("_CONFIG")
        || name.ends_with("CONFIG")
        || name.contains("RUNNER")
        || name.contains("WRAPPER")
        || name.contains("SHELL")
        || name.contains("EDITOR")
        || name.contains("PAGER")
        || name.contains("_COMMAND")
        || name.contains("_CMD")
        || name.ends_with("RC")
        || name.ends_with("_PROGRAM")
        || name.ends_with("_EXEC")
        || name.ends_with("_HOOK")
        || name.ends_with("_PLUGIN")
        || name.ends_with("_PLUGINS")
        || name.ends_with("_LIBRARY")
        || name.ends_with("_LIB")
        || name.ends_with("_PRELOAD")
        || name.ends_with("_INDEX_URL")
        || name.ends_with("_REGISTRY")
}

/// Data-like names that are inert unless code-selecting by shape (§15.14).
fn data_like(name: &str) -> bool {
    const SUFFIXES: &[&str] = &[
        "_URL",
        "_URI",
        "_DSN",
        "_HOST",
        "_PORT",
        "_LEVEL",
        "_ENV",
        "_MODE",
        "_REGION",
        "_PROFILE",
        "_TIMEOUT",
        "_DEBUG",
        "_VERBOSE",
        "_USER",
        "_NAME",
        "_DB",
        "_DATABASE",
    ];
    SUFFIXES.iter().any(|s| name.ends_with(s))
}

/// Classify an assignment name, with operator-configured inert names.
pub fn classify(name: &str, extra_inert: &[String]) -> EnvKind {
    if always_code(name) || code_by_shape(name) {
        return EnvKind::CodeSelecting;
    }
    if inert_builtin(name) || extra_inert.iter().any(|n| n == name) || data_like(name) {
        return EnvKind::Inert;
    }
    EnvKind::Other
}

/// The exception of §15.14: a code-selecting name (not one of §3.4/§15.4)
/// whose value names only a system location or a bare program name is
/// judged as without the assignment. `value` is the static value.
pub fn excused_by_value(name: &str, value: &str) -> bool {
    // No editor at all: git takes `:` to mean "do not launch one"
    // (`GIT_EDITOR=: git rebase --continue`). Not `true`: git finds it on
    // `PATH` by execvp, and a project directory on `PATH` (an activated
    // `.venv/bin`) may hold a planted one (rt10 F10).
    if matches!(
        name,
        "GIT_EDITOR" | "GIT_SEQUENCE_EDITOR" | "EDITOR" | "VISUAL"
    ) {
        return value == ":";
    }
    if always_code(name) {
        return false;
    }
    if matches!(name, "RUSTFLAGS" | "RUSTDOCFLAGS") {
        return rust_flags_inert(value);
    }
    if value.is_empty() || value.contains(['$', '`', ';', '|', '&', '(', ')', '<', '>', '\n']) {
        return false;
    }
    const SYSTEM: &[&str] = &[
        "/usr/",
        "/opt/",
        "/Library/",
        "/nix/store/",
        "/Applications/",
    ];
    let system_path = |v: &str| {
        v.starts_with('/')
            && !v.contains("/../")
            && !v.ends_with("/..")
            && SYSTEM
                .iter()
                .any(|p| v.starts_with(p) || v == &p[..p.len() - 1])
    };
    // A bare program name (resolved on PATH by the caller when it matters):
    // letters, digits, `-`, `_`, `.`, `+`.
    let bare_program = |v: &str| {
        !v.starts_with(['-', '.'])
            && v.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '+'))
    };
    // Options variables: only inert JVM/sanitizer options.
    if name.ends_with("_OPTS") || name.ends_with("_OPTIONS") || name.ends_with("FLAGS") {
        return value.split_whitespace().all(inert_option);
    }
    value.split(':').all(system_path) || (program_variable(name) && bare_program(value))
}

/// rustc flags that only set lint levels, `cfg` names and code generation
/// settings that run nothing (`-D warnings`, `-C opt-level=3`,
/// `--cfg tokio_unstable`). Not `-C linker=`, `-C link-arg=`, `-C
/// llvm-args=`, `-Z …`, `-L`, `-l`, `--extern`: those pick programs,
/// plugins or libraries.
fn rust_flags_inert(value: &str) -> bool {
    let lint = |v: &str| {
        v.starts_with(|c: char| c.is_ascii_alphanumeric())
            && v.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ':'))
    };
    let level = |v: &str| matches!(v, "allow" | "warn" | "deny" | "forbid");
    let cfg = |v: &str| {
        !v.is_empty()
            && !v.starts_with('-')
            && v.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '=' | '"' | '-'))
    };
    let codegen = |v: &str| {
        let (key, val) = v.split_once('=').unwrap_or((v, ""));
        const KEYS: &[&str] = &[
            "opt-level",
            "debuginfo",
            "target-cpu",
            "target-feature",
            "codegen-units",
            "debug-assertions",
            "overflow-checks",
            "force-frame-pointers",
            "panic",
            "strip",
            "lto",
            "embed-bitcode",
            "symbol-mangling-version",
        ];
        KEYS.contains(&key)
            && val
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '+' | ',' | '.'))
    };
    let words: Vec<&str> = value.split_whitespace().collect();
    if words.is_empty() {
        return false;
    }
    let mut i = 0;
    while i < words.len() {
        let w = words[i];
        let next = words.get(i + 1).copied();
        let (ok, used) = match w {
            "-D" | "-W" | "-A" | "-F" | "--deny" | "--warn" | "--allow" | "--forbid"
            | "--force-warn" => (next.is_some_and(lint), 2),
            "--cap-lints" => (next.is_some_and(level), 2),
            "-C" | "--codegen" => (next.is_some_and(codegen), 2),
            "--cfg" => (next.is_some_and(cfg), 2),
            _ => {
                let glued = [
                    ("--deny=", 0u8),
                    ("--warn=", 0),
                    ("--allow=", 0),
                    ("--forbid=", 0),
                    ("--force-warn=", 0),
                    ("--cap-lints=", 1),
                    ("--codegen=", 2),
                    ("--cfg=", 3),
                    ("-D", 0),
                    ("-W", 0),
                    ("-A", 0),
                    ("-F", 0),
                    ("-C", 2),
                ];
                let ok = glued.iter().find_map(|(p, k)| {
                    w.strip_prefix(p).map(|v| match k {
                        0 => lint(v),
                        1 => level(v),
                        2 => codegen(v),
                        _ => cfg(v),
                    })
                });
                (ok == Some(true), 1)
            }
        };
        if !ok {
            return false;
        }
        i += used;
    }
    true
}

/// Options of options-variables that select no code (`-Xmx2g`,
/// `detect_leaks=1`, `-O2`).
fn inert_option(o: &str) -> bool {
    // C/C++ compiler flags that only tune the build: optimization, debug
    // info, warnings (not `-Wl,`/`-Wp,`/`-Wa,`, which pass options on),
    // standard, target, sanitizers, simple macro definitions.
    let simple = |v: &str| {
        v.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '='))
    };
    if (o.starts_with("-O") && o.len() <= 4)
        || (o.starts_with("-g") && o.len() <= 8 && simple(o))
        || (o.starts_with("-W")
            && !o.starts_with("-Wl,")
            && !o.starts_with("-Wp,")
            && !o.starts_with("-Wa,")
            && simple(o))
        || (o.starts_with("-std=") && simple(o))
        || (o.starts_with("-march=") && simple(o))
        || (o.starts_with("-mtune=") && simple(o))
        || (o.starts_with("-fsanitize=")
            && o.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '=' | ',' | '_')))
        || matches!(
            o,
            "-fPIC"
                | "-fpic"
                | "-pipe"
                | "-pthread"
                | "-fno-omit-frame-pointer"
                | "-fno-exceptions"
                | "-fno-rtti"
        )
        || (o.starts_with("-D") && simple(&o[2..]) && !o[2..].is_empty())
    {
        return true;
    }
    let jvm = [
        "-Xmx",
        "-Xms",
        "-Xss",
        "-XX:MaxRAM",
        "-XX:+UseG1GC",
        "-Dfile.encoding=",
        "-Duser.timezone=",
    ];
    if jvm.iter().any(|p| o.starts_with(p)) {
        return !o.contains(['/', '\\', '@']);
    }
    // Sanitizer options: key=value pairs without paths or programs.
    o.split(':').all(|kv| match kv.split_once('=') {
        Some((k, v)) => {
            k.chars().all(|c| c.is_ascii_lowercase() || c == '_')
                && !k.ends_with("_path")
                && !k.contains("symbolizer")
                && !k.contains("log")
                && !k.contains("suppressions")
                && v.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        }
        None => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds() {
        for n in [
            "PATH",
            "HOME",
            "GIT_DIR",
            "LD_PRELOAD",
            "TAR_OPTIONS",
            "MAKEFLAGS",
            "KUBECONFIG",
            "npm_config_registry",
            "NPM_CONFIG_REGISTRY",
            "PIP_INDEX_URL",
            "CARGO_HOME",
            "RUSTFLAGS",
            "CC",
            "JAVA_TOOL_OPTIONS",
            "GRADLE_OPTS",
            "GOFLAGS",
            "GCONV_PATH",
            "PYTHONPATH",
            "NODE_OPTIONS",
            "MY_RUNNER",
            "FOO_CMD",
            "XRC",
            "AWKPATH",
            "XDG_CONFIG_HOME",
            "BASH_ENV",
        ] {
            assert_eq!(classify(n, &[]), EnvKind::CodeSelecting, "{n}");
        }
        for n in [
            "LANG",
            "LC_ALL",
            "TZ",
            "RUST_LOG",
            "NODE_ENV",
            "DATABASE_URL",
            "API_HOST",
            "LOG_LEVEL",
            "AWS_REGION",
            "CI",
        ] {
            assert_eq!(classify(n, &[]), EnvKind::Inert, "{n}");
        }
        for n in ["FOO", "BUILD_NUMBER", "TEST_FILTER"] {
            assert_eq!(classify(n, &[]), EnvKind::Other, "{n}");
        }
        assert_eq!(classify("PIP_INDEX_URL", &[]), EnvKind::CodeSelecting);
    }

    #[test]
    fn exceptions() {
        assert!(excused_by_value("CC", "clang"));
        assert!(excused_by_value(
            "JAVA_HOME",
            "/usr/lib/jvm/java-21-openjdk-amd64"
        ));
        assert!(excused_by_value("GRADLE_OPTS", "-Xmx2g"));
        assert!(excused_by_value("JAVA_TOOL_OPTIONS", "-Xss4m"));
        assert!(excused_by_value("ASAN_OPTIONS", "detect_leaks=1"));
        assert!(!excused_by_value("ASAN_OPTIONS", "log_path=/tmp/x"));
        assert!(!excused_by_value("CC", "./evil"));
        assert!(!excused_by_value("CC", "/tmp/evil"));
        assert!(!excused_by_value("JAVA_HOME", "/home/u/jdk"));
        assert!(!excused_by_value("PATH", "/usr/bin"));
        assert!(!excused_by_value("CC", "$(id)"));
        assert!(!excused_by_value("GOFLAGS", "-toolexec=/tmp/x"));
        assert!(!excused_by_value("JAVA_HOME", "/usr/../home/u"));
        for ok in [
            "-D warnings",
            "-Dwarnings",
            "-D warnings -A clippy::needless_return",
            "--deny=warnings --cap-lints warn",
            "-C opt-level=3 -C target-cpu=native",
            "-Ctarget-feature=+avx2,+fma",
            "--cfg tokio_unstable",
            "--cfg feature=\"x\"",
        ] {
            assert!(excused_by_value("RUSTFLAGS", ok), "{ok}");
        }
        for bad in [
            "",
            "-D",
            "-C linker=/tmp/x",
            "-Clink-arg=-Wl,-plugin=/tmp/x.so",
            "-C llvm-args=-load=/tmp/p.so",
            "-Z unstable-options",
            "-L /tmp/lib",
            "-lfoo",
            "--extern foo=/tmp/libfoo.rlib",
            "-D warnings -C linker=./cc",
            "-C opt-level=$(id)",
            "--cfg -Zx",
            "-D -Zunstable-options",
        ] {
            assert!(!excused_by_value("RUSTFLAGS", bad), "{bad}");
        }
        assert!(excused_by_value("RUSTDOCFLAGS", "-D warnings"));
        assert!(excused_by_value("GIT_EDITOR", ":"));
        assert!(excused_by_value("GIT_SEQUENCE_EDITOR", ":"));
        assert!(!excused_by_value("GIT_EDITOR", "true"));
        assert!(!excused_by_value("GIT_EDITOR", "./true"));
        assert!(!excused_by_value("GIT_EDITOR", "vim"));
        assert!(!excused_by_value("GIT_EDITOR", "true; id"));
        assert!(!excused_by_value("GIT_DIR", "true"));
    }
}
