//! Indentation style: text the engine writes after a match that ignored indentation takes the
//! file's style (tabs or spaces, and the width of one level), never a mix of the model's and
//! the file's (`\t    return a - b` in a tab-indented file).

/// How a text indents one level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Style {
    pub tabs: bool,
    /// Columns of one level (for a tab style: the columns a tab stands for in the arithmetic).
    pub width: usize,
}

fn leading_ws(s: &str) -> &str {
    &s[..s.len() - s.trim_start().len()]
}

/// Columns of the whitespace `ws`, a tab counting `width`.
fn columns(ws: &str, width: usize) -> usize {
    ws.chars().map(|c| if c == '\t' { width } else { 1 }).sum()
}

/// The width of one level in space-indented `lines`: the most frequent step by which the
/// indentation grows from one non-blank line to the next (ties to the smaller step). `None`
/// when it never grows.
fn space_width<'a>(lines: impl IntoIterator<Item = &'a str>) -> Option<usize> {
    let mut counts = std::collections::BTreeMap::<usize, usize>::new();
    let mut prev: Option<usize> = None;
    for l in lines.into_iter().filter(|l| !l.trim().is_empty()) {
        let ws = leading_ws(l);
        if ws.contains('\t') {
            prev = None;
            continue;
        }
        let n = ws.len();
        if let Some(p) = prev
            && n > p
        {
            *counts.entry(n - p).or_default() += 1;
        }
        prev = Some(n);
    }
    let best = counts.values().copied().max()?;
    counts.into_iter().find(|&(_, c)| c == best).map(|(w, _)| w)
}

/// Whether `lines` indent with tabs: more lines start with a tab than with two spaces or more
/// (one space is alignment, ` * ` in a doc comment). `None` when no line is indented.
fn uses_tabs<'a>(lines: impl IntoIterator<Item = &'a str>) -> Option<bool> {
    let (mut tabs, mut spaces) = (0usize, 0usize);
    for l in lines.into_iter().filter(|l| !l.trim().is_empty()) {
        if l.starts_with('\t') {
            tabs += 1;
        } else if l.starts_with("  ") {
            spaces += 1;
        }
    }
    (tabs + spaces > 0).then_some(tabs > spaces)
}

/// The file's style and the model's, measured on the file's lines and on the model's text
/// (the old and new text it sent). A side that says nothing takes the other's.
pub(crate) fn styles<'f, 'm>(
    file: impl IntoIterator<Item = &'f str> + Clone,
    model: impl IntoIterator<Item = &'m str> + Clone,
) -> (Style, Style) {
    let file_tabs = uses_tabs(file.clone());
    let model_tabs = uses_tabs(model.clone());
    let file_width = space_width(file);
    let model_width = space_width(model);
    let model_w = model_width.or(file_width).unwrap_or(4);
    let file_w = file_width.unwrap_or(model_w);
    let file_tabs = file_tabs.or(model_tabs).unwrap_or(false);
    let model_tabs = model_tabs.unwrap_or(file_tabs);
    // A tab is one level of either side: counting it as the other side's width keeps the
    // spaces left over (alignment) as they were.
    let file = Style {
        tabs: file_tabs,
        width: if file_tabs { model_w } else { file_w },
    };
    let model = Style {
        tabs: model_tabs,
        width: if model_tabs { file.width } else { model_w },
    };
    (file, model)
}

/// `line` of the model's text, whose indentation is measured from `from` (the model's
/// indentation of the line it was matched by), moved onto `to` (the file's indentation there)
/// and written in the file's style: each level the model indents more or less than `from` is
/// one level of the file's, spaces beyond whole levels are kept as alignment. A blank line is
/// kept as it is.
pub(crate) fn reindent_line(line: &str, from: &str, to: &str, model: Style, file: Style) -> String {
    if line.trim().is_empty() {
        return line.to_string();
    }
    let ws = leading_ws(line);
    let rest = &line[ws.len()..];
    let rel = columns(ws, model.width) as isize - columns(from, model.width) as isize;
    let levels = rel.div_euclid(model.width as isize);
    let align = rel.rem_euclid(model.width as isize);
    let base = columns(to, file.width) as isize;
    let target = (base + levels * file.width as isize + align).max(0) as usize;
    let indent = if file.tabs {
        format!(
            "{}{}",
            "\t".repeat(target / file.width),
            " ".repeat(target % file.width)
        )
    } else {
        " ".repeat(target)
    };
    format!("{indent}{rest}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn styles_are_measured_on_each_side() {
        let tab_file = ["def f(a, b):", "\tif a:", "\t\treturn b"];
        let model = ["def f(a, b):", "    if a:", "        return b"];
        let (file, m) = styles(tab_file, model);
        assert_eq!(
            file,
            Style {
                tabs: true,
                width: 4
            }
        );
        assert_eq!(
            m,
            Style {
                tabs: false,
                width: 4
            }
        );
        let two = ["a:", "  b:", "    c", "  d"];
        let (file, m) = styles(two, ["x", "\ty"]);
        assert_eq!(
            file,
            Style {
                tabs: false,
                width: 2
            }
        );
        assert_eq!(
            m,
            Style {
                tabs: true,
                width: 2
            }
        );
        // One step among many steps of four does not make the width one.
        let doc = [
            "/**", " * x", " */", "fn a() {", "    b();", "}", "fn c() {", "    d();", "}",
        ];
        assert_eq!(space_width(doc), Some(4));
    }

    // Tabs only when more lines start with a tab than with spaces: as many of each is spaces.
    // No indented line (one space is alignment) says nothing, and the other side decides.
    #[test]
    fn tabs_are_the_style_of_more_lines_than_spaces() {
        assert_eq!(uses_tabs(["a", "\tb", "    c"]), Some(false));
        assert_eq!(uses_tabs(["a", "\tb", "\tc", "    d"]), Some(true));
        assert_eq!(uses_tabs(["a", "  b", "\tc", "\td", "  e"]), Some(false));
        assert_eq!(uses_tabs(["/**", " * x", " */", "fn a() {}"]), None);
        let (file, _) = styles(["fn a() {}", "fn b() {}"], ["fn a() {", "\tb();", "}"]);
        assert!(
            file.tabs,
            "a file without indentation takes the model's tabs"
        );
    }

    #[test]
    fn levels_move_in_the_files_style() {
        let tabs = Style {
            tabs: true,
            width: 4,
        };
        let four = Style {
            tabs: false,
            width: 4,
        };
        let two = Style {
            tabs: false,
            width: 2,
        };
        assert_eq!(
            reindent_line("        x", "    ", "\t", four, tabs),
            "\t\tx"
        );
        assert_eq!(reindent_line("    x", "    ", "\t", four, tabs), "\tx");
        assert_eq!(reindent_line("x", "    ", "\t\t", four, tabs), "\tx");
        // Alignment beyond whole levels stays spaces.
        assert_eq!(reindent_line("      x", "    ", "\t", four, tabs), "\t  x");
        assert_eq!(reindent_line("\t\tx", "\t", "  ", tabs, two), "    x");
        assert_eq!(reindent_line("        x", "    ", "  ", four, two), "    x");
        assert_eq!(reindent_line("  \t", "", "\t", four, tabs), "  \t");
    }
}
