//! The sandbox keeps its own list of the project's secret files (it does
//! not depend on the policy crate): every name the gate treats as a secret
//! must be hidden inside a sandboxed run too, or a sandboxed build reads
//! what `cat` of the same file asks for.

#[test]
fn every_secret_name_of_the_gate_is_hidden_in_the_sandbox() {
    let mut missing = Vec::new();
    for pattern in shellgate_policy::secrets::SECRET_NAMES {
        // One name the pattern matches: each `*` as a plain stem.
        let sample = pattern.replace('*', "x");
        if !shellgate_policy::secrets::is_secret_name(&sample) {
            continue; // `id_*` and the like are decided by code, not the list
        }
        // The sandbox compares names as written; the gate ignores case.
        if !shellgate_sandbox::is_secret_file_name(&sample)
            && !SANDBOX_NAMES_BY_CASE.contains(&sample.as_str())
        {
            missing.push(sample);
        }
    }
    assert!(
        missing.is_empty(),
        "secret names the sandbox does not hide: {missing:?}"
    );
}

/// Names the gate lists lower-cased whose real spelling the sandbox
/// carries.
const SANDBOX_NAMES_BY_CASE: &[&str] = &["login data"];
