//! Any bytes as tool-approvals.json: load (quarantine) and match, no panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use shellgate_policy::fs::OsFs;
use shellgate_store::Store;
use shellgate_policy::{Audience, Os};

fuzz_target!(|data: &[u8]| {
    let Ok(dir) = tempfile::tempdir() else { return };
    let path = dir.path().join("tool-approvals.json");
    if std::fs::write(&path, data).is_err() {
        return;
    }
    if let Ok((s, _)) = Store::load(&path) {
        let _ = s.find(Audience::Personal, "shell_execute", "git status", Some("/home/u/p"), "/home/u", Os::Linux, &OsFs);
        let _ = s.groups();
    }
});
