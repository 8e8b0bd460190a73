//! `shellgate completions SHELL`: shell completion scripts (clap_complete).

use anyhow::Result;
use clap::{Args, CommandFactory};
use clap_complete::Shell;

use crate::cli::Cli;

#[derive(Args, Debug)]
#[command(after_help = "\
Install:
  bash  shellgate completions bash > ~/.local/share/bash-completion/completions/shellgate
  zsh   shellgate completions zsh > ~/.zfunc/_shellgate
        (with 'fpath+=~/.zfunc; autoload -Uz compinit; compinit' in ~/.zshrc)
  fish  shellgate completions fish > ~/.config/fish/completions/shellgate.fish

Then start a new shell.")]
pub struct CompletionsArgs {
    /// The shell to write the completion script for.
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: Shell,
}

/// Write the completion script for `a.shell` on stdout.
pub fn run(a: &CompletionsArgs) -> Result<u8> {
    let mut cmd = Cli::command();
    let mut out = std::io::stdout().lock();
    clap_complete::generate(a.shell, &mut cmd, "shellgate", &mut out);
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn scripts_for_every_shell() {
        for shell in [Shell::Bash, Shell::Zsh, Shell::Fish] {
            let mut buf = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "shellgate", &mut buf);
            let text = String::from_utf8(buf).expect("utf-8");
            for sub in ["check", "exec", "decide", "completions"] {
                assert!(text.contains(sub), "{shell}: {sub} missing");
            }
        }
    }
}
