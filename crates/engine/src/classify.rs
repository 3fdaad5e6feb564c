//! Which files a patch writes content to: only those get diagnostics (docs/design.md §5).

use crate::patch::{FileChange, Patch};

/// The files a patch writes content to, sorted by path, without duplicates.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Classification {
    pub content_write_files: Vec<String>,
    pub has_any_content_writes: bool,
}

/// Create and modify are content writes (of the path after the change); delete is none; a
/// rename is a content write of the NEW path only when it also changes content.
pub fn classify_patch_operations(patch: &Patch) -> Classification {
    let mut files: Vec<String> = patch
        .files
        .iter()
        .filter_map(|fp| match &fp.change {
            FileChange::Add { path, .. } => Some(path.clone()),
            FileChange::Delete { .. } => None,
            FileChange::Update {
                path,
                move_to,
                hunks,
            } => hunks
                .iter()
                .any(|h| h.has_changes())
                .then(|| move_to.clone().unwrap_or_else(|| path.clone())),
        })
        .collect();
    files.sort();
    files.dedup();
    Classification {
        has_any_content_writes: !files.is_empty(),
        content_write_files: files,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse_patch;

    fn check(patch: &str, expected: &[&str]) {
        let c = classify_patch_operations(&parse_patch(patch).unwrap());
        assert_eq!(c.content_write_files, expected, "patch:\n{patch}");
        assert_eq!(c.has_any_content_writes, !expected.is_empty());
    }

    #[test]
    fn classification_table() {
        // Modify one file.
        check("--- a/a.ts\n+++ b/a.ts\n@@ -1 +1 @@\n-x\n+y\n", &["a.ts"]);
        // Create.
        check(
            "--- /dev/null\n+++ b/new.rs\n@@ -0,0 +1 @@\n+fn f() {}\n",
            &["new.rs"],
        );
        // Hunks of context only change nothing: no content write.
        check("--- a/a.ts\n+++ b/a.ts\n@@ -1,2 +1,2 @@\n x\n y\n", &[]);
        // Delete only.
        check("--- a/old.rs\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n", &[]);
        // Pure rename.
        check(
            "diff --git a/a.ts b/b.ts\nsimilarity index 100%\nrename from a.ts\nrename to b.ts\n",
            &[],
        );
        // Rename with edits: the new path.
        check(
            "diff --git a/a.ts b/b.ts\nrename from a.ts\nrename to b.ts\n--- a/a.ts\n+++ b/b.ts\n@@ -1 +1 @@\n-x\n+y\n",
            &["b.ts"],
        );
        // Pure rename A→B + modify C + delete D: C only.
        check(
            "*** Begin Patch\n*** Update File: a.ts\n*** Move to: b.ts\n*** Update File: c.ts\n@@\n-x\n+y\n*** Delete File: d.ts\n*** End Patch\n",
            &["c.ts"],
        );
        // Rename with edits + delete: the new path only; sorted.
        check(
            "*** Begin Patch\n*** Delete File: c.ts\n*** Update File: z.ts\n@@\n-x\n+y\n*** Update File: a.ts\n*** Move to: b.ts\n@@\n-x\n+y\n*** End Patch\n",
            &["b.ts", "z.ts"],
        );
    }
}
