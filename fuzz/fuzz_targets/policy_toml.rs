//! Any text as policy.toml: parse or a clear error, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use shellgate_policy::config::PolicyConfig;
use shellgate_policy::Audience;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(c) = PolicyConfig::parse(text, std::path::Path::new("policy.toml")) {
        for a in Audience::ALL {
            let _ = c.tool_mode(a, "shell_execute");
            let _ = c.file_modes(a);
        }
    }
});
