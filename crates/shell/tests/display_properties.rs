//! Property tests of the display text: whatever the input, it never holds
//! a character that could hide or fake what runs.

use proptest::prelude::*;
use shellgate_shell::display::{display, must_escape};
use shellgate_shell::parse::parse;

fn shellish() -> impl Strategy<Value = String> {
    let atoms = prop::sample::select(vec![
        "echo",
        "ls",
        "git",
        "rm -rf",
        "\n",
        "\r",
        "\r\n",
        "\t",
        "\"",
        "'",
        "$(",
        ")",
        "`",
        "|",
        "&&",
        ";",
        "<<EOF\n",
        "EOF",
        "\u{202e}",
        "\u{200b}",
        "\u{1b}[2K",
        "\u{9b}",
        "\u{7f}",
        "\u{0}",
        "\u{2028}",
        "\u{feff}",
        "é",
        "🎉",
        " ",
        "a",
        "/tmp",
        "~",
        "${x}",
        "(",
        "{",
        "}",
        "\\",
    ]);
    prop::collection::vec(atoms, 0..24).prop_map(|v| v.concat())
}

fn visible(s: &str) -> bool {
    !s.chars()
        .any(|c| must_escape(c) || c == '\n' || c == '\r' || c == '\t')
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, .. ProptestConfig::default() })]

    /// Display text never contains a control, bidi or line-break character.
    #[test]
    fn display_is_always_visible(cmd in any::<String>()) {
        let script = parse(&cmd, 0).ok();
        let d = display(&cmd, script.as_ref());
        prop_assert!(visible(&d), "display {:?} of {:?}", d, cmd);
    }

    #[test]
    fn display_of_shell_like_text_is_visible(cmd in shellish()) {
        let script = parse(&cmd, 0).ok();
        let d = display(&cmd, script.as_ref());
        prop_assert!(visible(&d), "display {:?} of {:?}", d, cmd);
    }
}
