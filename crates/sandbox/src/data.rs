//! The sandbox's lists, kept as data (SPEC §9.4, §15.3, §15.18, §15.19, §18).

/// Secrets below the home directory that the sandbox hides (reads fail or see
/// nothing), relative to `$HOME`. Directories are hidden whole.
pub(crate) const HOME_SECRETS: &[&str] = &[
    ".ssh",
    ".aws",
    ".gnupg",
    ".azure",
    ".kube/config",
    ".docker/config.json",
    ".config/gh",
    ".config/gcloud",
    ".config/hub",
    ".config/git/credentials",
    ".netrc",
    "_netrc",
    ".npmrc",
    ".pypirc",
    ".git-credentials",
    ".vault-token",
    ".terraform.d/credentials.tfrc.json",
    ".pgpass",
    ".my.cnf",
    ".s3cfg",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".gradle/gradle.properties",
    ".m2/settings.xml",
    ".m2/settings-security.xml",
    ".gem/credentials",
    ".gemrc",
    ".config/pip/pip.conf",
    ".pip/pip.conf",
    ".yarnrc.yml",
    ".yarnrc",
    ".bundle/config",
    ".config/pypoetry/auth.toml",
    ".config/pnpm/rc",
    ".config/glab-cli",
    ".config/composer/auth.json",
    ".composer/auth.json",
    ".nuget/NuGet/NuGet.Config",
    ".config/NuGet/NuGet.Config",
    ".password-store",
    ".local/share/keyrings",
    ".mozilla",
    ".config/google-chrome",
    ".config/chromium",
    // The agents' own credentials (helper-24 F5: a sandboxed script printed
    // them), shell and REPL histories (commands typed with secrets),
    // more cloud and tool credentials.
    ".claude/.credentials.json",
    ".codex/auth.json",
    ".gemini/oauth_creds.json",
    ".gemini/google_accounts.json",
    ".config/github-copilot",
    ".kube",
    ".bash_history",
    ".zsh_history",
    ".zhistory",
    ".histfile",
    ".local/share/fish/fish_history",
    ".python_history",
    ".psql_history",
    ".mysql_history",
    ".sqlite_history",
    ".node_repl_history",
    ".rediscli_history",
    ".config/rclone",
    ".terraformrc",
    ".config/sops",
    ".config/age",
    ".pulumi/credentials.json",
    ".config/op",
    ".config/doctl",
    ".config/hcloud",
    ".oci",
    ".config/containers/auth.json",
    ".fly",
    ".config/.wrangler",
    ".wrangler",
    ".config/configstore",
    ".local/share/com.vercel.cli",
    ".config/netlify",
    ".config/heroku",
    ".netlify",
    ".huggingface/token",
    ".cache/huggingface/token",
    // rt9 F9: credentials inside tool homes the sandbox opens: adb's
    // private key, huggingface_hub's token store, RubyGems' XDG
    // credentials, uv's credential store.
    ".android/adbkey",
    ".cache/huggingface/stored_tokens",
    ".local/share/gem/credentials",
    ".local/share/uv/credentials",
    // rt10 F12: .NET's certificate stores (private keys), PlatformIO's
    // account token.
    ".dotnet/corefx/cryptography",
    ".platformio/appstate.json",
    ".config/anthropic",
    ".config/openai",
    // The credential stores of the build tools that run sandboxed since
    // build2.toml (rt25 F7: a sandboxed script printed each of them): sbt
    // and Ivy, Stack's Hackage upload, Dart/Flutter pub, Leiningen, Hex
    // (rebar3, mix).
    ".sbt/.credentials",
    ".sbt/1.0/credentials.sbt",
    ".ivy2/.credentials",
    ".stack/upload/credentials.json",
    ".pub-cache/credentials.json",
    ".config/dart/pub-credentials.json",
    ".config/dart/pub-tokens.json",
    ".lein/credentials.clj.gpg",
    ".lein/credentials.clj",
    ".config/rebar3/hex.config",
    ".hex/hex.config",
    // rt25a F3: Julia's package-server tokens, the Snowflake connector's
    // token cache.
    ".julia/servers",
    ".cache/snowflake",
    // macOS and sandboxed-app stores (§15.19)
    "Library/Keychains",
    "Library/Cookies",
];

/// System files that hold secrets (readable only by root, but a sandboxed
/// root caller keeps its uid). Entries ending in `*_key` are expanded by
/// listing their directory.
pub(crate) const SYSTEM_SECRETS: &[&str] = &[
    "/etc/shadow",
    "/etc/shadow-",
    "/etc/gshadow",
    "/etc/gshadow-",
    "/etc/sudoers",
    // TLS private keys (rt25: a sandboxed root caller printed the snakeoil
    // key; the directories are 0710 root:ssl-cert for everyone else).
    "/etc/ssl/private",
    "/etc/pki/tls/private",
];

/// Directories whose contents a sandboxed command cannot read at all,
/// beyond the caller's own home (always closed, see [`HOME_READABLE`]):
/// the other homes a root caller could read, and the run-time directories
/// where container engines and orchestrators put credentials (podman's
/// `auth.json` under `/run/user/<uid>/containers`, Docker and Kubernetes
/// secrets and service-account tokens under `/run/secrets`). Every entry
/// of `/home` is closed too, except [`HOMES_OPEN`].
pub(crate) const CLOSED_READS: &[&str] = &["/root", "/run/user", "/run/secrets", "/run/containers"];

/// System trees where, for a root caller, whatever others may not read is
/// closed as well (rt6: a root caller's build read `/var/cache/debconf/
/// passwords.dat`, `/etc/security/opasswd` and a 0600 file of `/etc`: a
/// root process keeps its uid in the sandbox and owns them).
pub(crate) const ROOT_ONLY_TREES: &[&str] = &["/etc", "/var", "/srv", "/opt", "/boot"];

/// Package managers' databases and caches below [`ROOT_ONLY_TREES`]:
/// public (what every package installed), large (`/var/lib/dpkg/info` has
/// thousands of files), and read without inspection.
pub(crate) const ROOT_ONLY_PUBLIC: &[&str] = &[
    "/var/lib/dpkg",
    "/var/lib/apt/lists",
    "/var/cache/apt",
    "/var/cache/man",
    "/var/cache/debconf/templates.dat",
    "/var/lib/rpm",
    "/var/lib/dnf",
    "/var/cache/dnf",
    "/var/cache/yum",
    "/var/lib/pacman",
    "/var/cache/pacman",
    "/var/lib/apk",
    "/var/cache/apk",
    "/var/cache/fontconfig",
];

/// Most entries the walk of [`ROOT_ONLY_TREES`] looks at; the directories
/// it could not reach in time are closed whole.
pub(crate) const ROOT_ONLY_WALK_MAX: usize = 50_000;

/// Entries of `/home` that hold installed software, not a person's files.
pub(crate) const HOMES_OPEN: &[&str] = &["linuxbrew"];

/// What a sandboxed command may read in the home, relative to `$HOME`: the
/// toolchains, version managers, package caches and the tools' ordinary
/// configuration a build reads (rt6: the home was readable except a list of
/// secrets, and a build printed other projects' `.env`, `~/.bashrc` exports,
/// browser and chat cookies, shell histories and the tokens of every tool
/// the list did not name). Anything else in the home is closed; the
/// secrets listed in [`HOME_SECRETS`] stay hidden inside these too. The
/// project, the writable roots, the entries of `PATH` and of
/// [`TOOL_PATH_VARS`] and the git config files the user's config includes
/// are readable wherever they lie.
pub(crate) const HOME_READABLE: &[&str] = &[
    // toolchains and version managers
    ".cargo",
    ".rustup",
    "go",
    "sdk",
    ".pyenv",
    ".nvm",
    ".fnm",
    ".volta",
    ".rbenv",
    ".rvm",
    ".sdkman",
    ".asdf",
    ".bun",
    ".deno",
    ".dotnet",
    ".nuget/packages",
    ".ghcup",
    ".cabal",
    ".stack",
    ".opam",
    ".julia",
    ".elan",
    ".jdks",
    ".konan",
    ".gradle",
    ".m2",
    ".ivy2",
    ".sbt",
    ".lein",
    ".pub-cache",
    ".gem",
    ".bundle",
    ".npm",
    ".node-gyp",
    ".yarn",
    ".conda",
    ".condarc",
    "miniconda3",
    "anaconda3",
    "miniforge3",
    "mambaforge",
    ".pixi",
    ".mix",
    ".hex",
    ".nix-profile",
    ".nix-defexpr",
    ".android",
    "Android",
    "flutter",
    ".flutter",
    ".flutter_tool_state",
    ".platformio",
    ".cmake",
    "perl5",
    ".swiftpm",
    ".local/bin",
    ".local/lib",
    ".local/include",
    ".local/pipx",
    ".local/share/pipx",
    ".local/share/uv",
    ".local/share/virtualenvs",
    ".local/share/mise",
    ".local/share/pnpm",
    ".local/share/fnm",
    ".local/share/gem",
    ".local/share/pypoetry",
    ".local/share/virtualenv",
    ".local/share/hatch",
    ".local/share/pdm",
    // caches (their credential files are in HOME_SECRETS)
    ".cache",
    ".ccache",
    // configuration builds and linters read
    ".config/git",
    ".config/go",
    ".config/mise",
    ".config/uv",
    ".config/ruff",
    ".config/flake8",
    ".config/pycodestyle",
    ".config/yamllint",
    ".config/clangd",
    ".config/matplotlib",
    ".gitconfig",
    ".gitignore",
    ".gitignore_global",
    ".gitattributes",
    ".editorconfig",
    ".clang-format",
    ".clang-tidy",
    ".prettierrc",
    ".eslintrc",
    ".eslintrc.json",
    ".pylintrc",
    ".flake8",
    ".isort.cfg",
    ".rustfmt.toml",
    ".tool-versions",
    ".python-version",
    ".node-version",
    ".nvmrc",
    ".ruby-version",
    ".bazelrc",
];

/// Environment variables naming directories (or `:`-separated lists of
/// them) that tools run or read from: where one lies in a closed home it is
/// readable (`PATH=~/bin:…`, `PYENV_ROOT`, `JAVA_HOME=~/jdk`). The home
/// itself, or an ancestor of it, never is.
pub(crate) const TOOL_PATH_VARS: &[&str] = &[
    "PATH",
    "GOPATH",
    "GOROOT",
    "GOBIN",
    "GOMODCACHE",
    "GOCACHE",
    "CARGO_HOME",
    "RUSTUP_HOME",
    "JAVA_HOME",
    "GRADLE_USER_HOME",
    "GRADLE_HOME",
    "MAVEN_HOME",
    "M2_HOME",
    "PYENV_ROOT",
    "VIRTUAL_ENV",
    "CONDA_PREFIX",
    "PIPX_HOME",
    "POETRY_HOME",
    "NVM_DIR",
    "FNM_DIR",
    "VOLTA_HOME",
    "BUN_INSTALL",
    "DENO_DIR",
    "DENO_INSTALL",
    "PNPM_HOME",
    "NPM_CONFIG_PREFIX",
    "npm_config_prefix",
    "RBENV_ROOT",
    "ASDF_DIR",
    "ASDF_DATA_DIR",
    "MISE_DATA_DIR",
    "SDKMAN_DIR",
    "ANDROID_HOME",
    "ANDROID_SDK_ROOT",
    "FLUTTER_ROOT",
    "PUB_CACHE",
    "DOTNET_ROOT",
    "JULIA_DEPOT_PATH",
    "OPAM_SWITCH_PREFIX",
    "GHCUP_INSTALL_BASE_PREFIX",
    "PLAYWRIGHT_BROWSERS_PATH",
    "XDG_CACHE_HOME",
    "PYTHONPATH",
    "NODE_PATH",
    "LD_LIBRARY_PATH",
    "LIBRARY_PATH",
    "CPATH",
    "PKG_CONFIG_PATH",
    "CMAKE_PREFIX_PATH",
];

/// Directory whose `ssh_host_*_key` files (host private keys) are hidden.
pub(crate) const SSH_HOST_KEY_DIR: &str = "/etc/ssh";

/// Host control files and directories that are write-protected in every
/// writable project root (§9.4, §15.18). Directories are protected whole.
/// `(name, is_dir)`: an absent directory gets an empty placeholder directory
/// so that it cannot be created inside the sandbox; an absent file cannot be
/// protected on Linux (see the crate docs) and is reported in the notes.
pub(crate) const PROJECT_CONTROL: &[(&str, bool)] = &[
    (".claude", true),
    (".codex", true),
    (".gemini", true),
    (".mcp.json", false),
];

/// Files and directories in a project root that other programs run on
/// their own, later and unconfined (git hook managers' scripts, editors'
/// tasks, dev containers, the wrappers' download locations):
/// write-protected where they exist, as are [`TOOL_CONFIG_FILES`].
pub(crate) const PROJECT_CONTROL_IF_PRESENT: &[&str] = &[
    ".husky",
    ".githooks",
    ".vscode",
    ".idea",
    ".devcontainer",
    ".mvn/wrapper/maven-wrapper.properties",
    "gradle/wrapper/gradle-wrapper.properties",
];

/// Configuration files at a project root that make a tool run programs
/// they name (a wrapper, a toolchain path, a JVM agent, a package
/// manager's own code, direnv's and hook managers' scripts), and that no
/// build or test writes: read-only inside the sandbox where they exist;
/// one a run creates is removed afterwards by `shellgate sandbox --record`.
pub const TOOL_CONFIG_FILES: &[&str] = &[
    ".envrc",
    ".pre-commit-config.yaml",
    ".lefthook.yml",
    ".lefthook.yaml",
    "lefthook.yml",
    "lefthook.yaml",
    ".cargo/config.toml",
    ".cargo/config",
    ".mvn/jvm.config",
    ".mvn/maven.config",
    ".mvn/extensions.xml",
    ".bazelrc",
    ".yarnrc.yml",
    ".yarnrc",
    ".pnpmfile.cjs",
    ".mise.toml",
    ".mise.local.toml",
    "mise.toml",
    "mise.local.toml",
    ".tool-versions",
    "rust-toolchain.toml",
    "rust-toolchain",
];

/// Inside a git directory: write-protected entries `(name, is_dir)`.
pub(crate) const GITDIR_PROTECTED: &[(&str, bool)] = &[
    ("config", false),
    // read as config when `extensions.worktreeConfig` is on (sparse-checkout
    // turns it on)
    ("config.worktree", false),
    ("hooks", true),
    ("info", true),
];

/// Host settings below the home directory, write-protected wherever they fall
/// inside a writable root (relative to `$HOME`).
pub(crate) const HOME_CONTROL: &[&str] = &[
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".claude.json",
    ".codex",
    ".gemini/settings.json",
    ".gemini/trustedFolders.json",
];

/// A toolchain cache the `build` profile may write: its location relative to
/// `$HOME`, and an environment variable that relocates it (the variable's
/// value joined with `env_suffix`).
pub(crate) struct CacheDir {
    pub env: Option<&'static str>,
    pub env_suffix: &'static str,
    pub home_rel: &'static str,
}

const fn cache(
    env: Option<&'static str>,
    env_suffix: &'static str,
    home_rel: &'static str,
) -> CacheDir {
    CacheDir {
        env,
        env_suffix,
        home_rel,
    }
}

/// Toolchain caches writable under profile `build` (only those that exist).
/// `~/.rustup` is deliberately absent: toolchains are read, never written.
pub(crate) const CACHE_DIRS: &[CacheDir] = &[
    cache(Some("CARGO_HOME"), "registry", ".cargo/registry"),
    cache(Some("CARGO_HOME"), "git", ".cargo/git"),
    cache(Some("GOMODCACHE"), "", "go/pkg/mod"),
    cache(Some("GOCACHE"), "", ".cache/go-build"),
    cache(Some("GRADLE_USER_HOME"), "caches", ".gradle/caches"),
    cache(Some("GRADLE_USER_HOME"), "wrapper", ".gradle/wrapper"),
    cache(None, "", ".m2/repository"),
    cache(Some("npm_config_cache"), "", ".npm"),
    cache(Some("PIP_CACHE_DIR"), "", ".cache/pip"),
    cache(Some("YARN_CACHE_FOLDER"), "", ".cache/yarn"),
    cache(None, "", ".yarn/berry/cache"),
    cache(None, "", ".cache/pnpm"),
    cache(None, "", ".local/share/pnpm/store"),
    cache(Some("UV_CACHE_DIR"), "", ".cache/uv"),
    cache(None, "", ".cache/pypoetry"),
    cache(Some("CCACHE_DIR"), "", ".cache/ccache"),
    cache(None, "", ".ccache"),
    cache(Some("SCCACHE_DIR"), "", ".cache/sccache"),
    cache(None, "", ".cache/bazel"),
    cache(Some("DENO_DIR"), "", ".cache/deno"),
    cache(None, "", ".bun/install/cache"),
    cache(Some("NUGET_PACKAGES"), "", ".nuget/packages"),
    cache(None, "", ".cache/zig"),
    cache(None, "", ".cache/node-gyp"),
    cache(None, "", ".cabal/packages"),
];

/// Directories the bounded project walk does not enter: dependency trees
/// and caches (large, and their secrets are not the project's). Build
/// outputs are walked: a build copies the project's `.env` into `dist/`
/// (rt25a F2 printed `dist/.env`); so are `.terraform` (its backend
/// config) and `.idea` (data sources with passwords).
pub(crate) const WALK_SKIP: &[&str] = &[
    ".git",
    "node_modules",
    "target",
    "vendor",
    ".venv",
    "venv",
    "__pycache__",
    ".gradle",
    ".cache",
];

/// Most plain files made readable in each directory above the project
/// inside a closed home.
pub(crate) const ABOVE_PROJECT_MAX_FILES: usize = 200;

/// Most links into other directories followed per `PATH` entry inside a
/// closed home.
pub(crate) const PATH_LINKS_MAX: usize = 1000;

/// Bounds of the project walk for secret files. A walk that reaches one
/// has not seen every secret the command could read: the sandbox refuses
/// to run (rt25a F2: a first run planted 5,200 files so that the next one
/// read a `.env` the walk no longer reached; a depth bound left
/// `services/api/config/.env` readable). The same budget as the policy's
/// tree walk.
pub(crate) const WALK_MAX_DEPTH: usize = 64;
pub(crate) const WALK_MAX_ENTRIES: usize = 20_000;

/// Directory names inside a project that are hidden whole.
pub(crate) const SECRET_DIR_NAMES: &[&str] = &[
    ".ssh",
    ".aws",
    ".gnupg",
    ".azure",
    ".password-store",
    ".oci",
];

/// Whether a file name inside a project looks like a secret (§8.3, §15.3,
/// §15.19). A public key (`*.pub`) is never a secret.
pub fn is_secret_file_name(name: &str) -> bool {
    if name.ends_with(".pub") {
        return false;
    }
    const EXACT: &[&str] = &[
        ".env",
        ".envrc",
        ".netrc",
        "_netrc",
        ".npmrc",
        ".pypirc",
        ".git-credentials",
        "credentials",
        "credentials.json",
        ".vault-token",
        "credentials.tfrc.json",
        ".pgpass",
        ".my.cnf",
        ".htpasswd",
        ".dev.vars",
        ".s3cfg",
        // the gate's additions of rt12 (policy's SECRET_NAMES)
        "kubeconfig",
        "application_default_credentials.json",
        ".boto",
        ".authinfo",
        ".passwd-s3fs",
        ".smbcredentials",
        "rclone.conf",
        ".terraformrc",
        "terraform.rc",
        ".msmtprc",
        ".fetchmailrc",
        ".secrets",
        "logins.json",
        "Login Data",
        ".dockercfg",
    ];
    const SUFFIX: &[&str] = &[
        ".pem",
        ".key",
        ".p12",
        ".pfx",
        ".kdbx",
        ".tfstate",
        ".tfvars",
        ".jks",
        ".keystore",
        ".ppk",
        ".gpg",
        ".kubeconfig",
        ".tfvars.json",
        ".keytab",
    ];
    const PREFIX: &[&str] = &[
        "krb5cc",
        ".env.",
        "secrets.",
        "secring.",
        "id_rsa",
        "id_dsa",
        "id_ecdsa",
        "id_ed25519",
        "client_secret",
        ".authinfo.",
        "id_xmss",
        "kubeconfig.",
    ];
    if EXACT.contains(&name) {
        return true;
    }
    if SUFFIX
        .iter()
        .any(|s| name.len() > s.len() && name.ends_with(s))
    {
        return true;
    }
    if PREFIX.iter().any(|p| name.starts_with(p)) {
        return true;
    }
    // tfstate backups (`terraform.tfstate.backup`) and service-account keys
    name.contains(".tfstate.") || (name.starts_with("service-account") && name.ends_with(".json"))
}

/// Whether a configuration file's text holds a credential: a key or value
/// naming a token, password, secret or authorization header, or a URL with
/// user information (`https://x-access-token:T@github.com`,
/// `https://ghp_T@github.com`).
pub(crate) fn config_holds_credential(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    const WORDS: &[&str] = &[
        "token",
        "password",
        "passwd",
        "secret",
        "extraheader",
        "authorization",
        "bearer",
        "_auth",
        "apikey",
        "api_key",
        "api-key",
        "credentials(",
        "repository-auth",
    ];
    if WORDS.iter().any(|w| lower.contains(w)) || shellgate_secrets::credential_value(text) {
        return true;
    }
    let mut rest = text;
    while let Some(i) = rest.find("://") {
        rest = &rest[i + 3..];
        let authority = rest
            .split(['/', '?', '#', ' ', ',', '"', '\'', '\n'])
            .next()
            .unwrap_or("");
        // `ssh://git@host/…` names a user, not a credential.
        if let Some((user, _)) = authority.rsplit_once('@') {
            if user != "git" {
                return true;
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::is_secret_file_name;

    #[test]
    fn credential_configs() {
        use super::config_holds_credential as holds;
        assert!(holds("[github]\n\ttoken = ghp_x\n"));
        assert!(holds(
            "[url \"https://x-access-token:T@github.com/\"]\n\tinsteadOf = https://github.com/\n"
        ));
        assert!(holds("index-url = https://u:pw@pypi.example/simple\n"));
        // rt25a F3: Bazel's remote headers, sbt's and Leiningen's forms.
        assert!(holds("build --remote_header=x-buildbuddy-api-key=abc\n"));
        assert!(holds(
            "credentials += Credentials(\"R\", \"h\", \"u\", \"p\")\n"
        ));
        assert!(holds(
            "{:user {:repository-auth {#\"r\" {:username \"u\" :password \"p\"}}}}"
        ));
        // A credential helper is not a credential (git still needs its
        // user.name from this file).
        assert!(!holds(
            "[user]\n\tname = A\n[credential]\n\thelper = store\n"
        ));
        assert!(!holds("[user]\n\tname = A\n\temail = a@b.c\n[credential]\n\thelper = osxkeychain\n[url \"ssh://git@github.com/\"]\n\tinsteadOf = https://github.com/\n"));
    }

    #[test]
    fn secret_names() {
        for n in [
            ".env",
            ".env.local",
            "server.pem",
            "tls.key",
            "id_rsa",
            "id_ed25519",
            "terraform.tfstate",
            "terraform.tfstate.backup",
            "prod.tfvars",
            "service-account-prod.json",
            "secrets.yaml",
            "credentials",
            ".envrc",
        ] {
            assert!(is_secret_file_name(n), "{n}");
        }
        for n in [
            "main.rs",
            "id_rsa.pub",
            "key",
            ".pem",
            "README.md",
            "environment.yml",
            "keys.rs",
        ] {
            assert!(!is_secret_file_name(n), "{n}");
        }
    }
}
