//! The CLI's bounds on hostile input: each a refusal with a reason and exit 1, nothing written.

use crate::harness::Project;

// Regression: `lspedit apply /dev/zero` grew to 4 GB.
#[test]
fn an_endless_patch_input_is_too_large() {
    let p = Project::with_files(&[("a.txt", "a\n")]);
    let r = p.run(&["apply", "/dev/zero", "--json", "--no-diagnostics"], "");
    r.assert_code(1);
    assert_eq!(r.json()["reason"], "too_large", "{}", r.stdout);
    assert_eq!(p.read("a.txt"), "a\n");
}

// Regression: `read --offset` past the end printed nothing, exit 0.
#[test]
fn read_past_the_end_says_so() {
    let p = Project::with_files(&[("a.txt", "a\nb\n")]);
    let r = p.run(&["read", "a.txt", "--offset", "5", "--json"], "");
    r.assert_code(1);
    let v = r.json();
    assert_eq!(v["reason"], "out_of_bounds", "{v}");
    assert!(
        v["llm_content"]
            .as_str()
            .unwrap()
            .contains("offset 5 is past the end of the file (2 lines)"),
        "{v}"
    );
    p.run(&["read", "a.txt", "--offset", "2"], "")
        .assert_code(0);
}
