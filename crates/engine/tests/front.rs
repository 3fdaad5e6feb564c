//! The process-wide front end ([`Front::set`], [`Front::current`]). Its own test binary, so
//! that switching the whole process to the CLI's words races with no other test (the unit
//! tests read MCP's words through the same setting).

use lspedit_engine::front::{Front, Step, say, say_first};

// One test, so the steps run in this order in a process that starts with MCP's words.
#[test]
fn the_front_end_set_is_the_one_every_text_speaks_in() {
    let apply = Step::ApplyProposal {
        patch_id: "patch_1",
    };
    assert_eq!(Front::current(), Front::Mcp);
    assert_eq!(say(&apply), "apply_edit(\"patch_1\")");
    assert_eq!(say_first(&Step::Propose), "Call propose_edit");

    Front::set(Front::Cli);
    assert_eq!(Front::current(), Front::Cli);
    assert_eq!(say(&apply), "`lspedit apply-id patch_1`");
    assert_eq!(say_first(&Step::Propose), "Run `lspedit propose`");

    Front::set(Front::Mcp);
    assert_eq!(Front::current(), Front::Mcp);
    assert_eq!(say(&apply), "apply_edit(\"patch_1\")");
}
