//! A recognizer for the plain XML modelers write, read in front of quick-xml.
//!
//! Why it exists: quick-xml costs 600-700 instructions per event (its per-event set-up, UTF-8
//! validation of every event although the input is a `&str`, its attribute iterator), and a
//! modeler file is tens of thousands of small events: half of it BPMN DI (thousands of
//! `BPMNShape`/`BPMNEdge` elements, each with `dc:Bounds`/`di:waypoint` children), a third of
//! its process elements `incoming`/`outgoing` references. Reading the events was most of a
//! deploy. Here one byte loop recognizes a whole element with its subtree when it is written
//! in a strict subset of XML: start, empty and end tags with names of `[A-Za-z0-9_.-]` (with at
//! most one `:`), attributes `name="value"` or `name='value'` whose value has no `<`, `>` or
//! control character but white space (values with references or white space to normalise are
//! marked, and quick-xml's normaliser reads them as it does for its own events), no namespace
//! declaration, no attribute written twice, end tags naming their start tag exactly, and
//! between tags text without `<` or control characters other than white space, whose `&`s
//! start references `&name;` or `&#n;` (marked: the replay resolves them as quick-xml's
//! reference events are resolved). Anything else (a comment, a processing instruction, CDATA,
//! a lone `&`, an odd byte) and the recognizer gives up: quick-xml, the parser of record,
//! reads the element as before. All or nothing: what is recognized is only buffered, and
//! `Builder` replays it through the same code as quick-xml's events, so an element read here
//! leaves exactly what quick-xml's reading would.

/// What [`element`] recognized, in document order; reused from one element to the next.
#[derive(Debug, Default)]
pub(crate) struct Fragment {
    pub tokens: Vec<Token>,
    pub attrs: Vec<PlainAttr>,
    /// The names of the open elements (start, end), to match end tags.
    open: Vec<(u32, u32)>,
    /// Start tag names read before, by their first eight bytes.
    tag_names: KnownNames,
    /// Attribute names read before, by their first two bytes.
    attr_names: KnownNames,
}

/// Names read before in this element, to recognise the same name again by comparing it with
/// an earlier occurrence instead of scanning it byte by byte: a modeler file repeats a few
/// dozen names (`bpmndi:BPMNShape`, `dc:Bounds`, `bpmnElement`, `x`) thousands of times.
/// Only a cache: a name found here is one that [`name`] would read the same way.
#[derive(Debug)]
struct KnownNames([KnownName; KNOWN_NAMES]);

const KNOWN_NAMES: usize = 32;

/// Where a name was read: its bytes are `start..start + len`, its local part starts at
/// `start + local` (`len` 0: no name).
#[derive(Debug, Clone, Copy, Default)]
struct KnownName {
    start: u32,
    len: u16,
    local: u16,
}

impl Default for KnownNames {
    fn default() -> Self {
        KnownNames([KnownName::default(); KNOWN_NAMES])
    }
}

impl KnownNames {
    fn clear(&mut self) {
        self.0 = [KnownName::default(); KNOWN_NAMES];
    }

    /// The end of the name at `at` and where its local part starts, as [`name`] reads it;
    /// `KEY` leading bytes choose the slot.
    #[inline(always)]
    fn name<const KEY: usize>(&mut self, text: &[u8], at: usize) -> Option<(usize, usize)> {
        let Some(key) = text.get(at..).and_then(<[u8]>::first_chunk::<KEY>) else {
            return name(text, at);
        };
        let mut word = [0; 8];
        word[..KEY].copy_from_slice(key);
        // Fibonacci hashing: the top bits of the product mix all the key's bytes.
        let slot = (u64::from_le_bytes(word).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 59) as usize
            % KNOWN_NAMES;
        let known = self.0[slot];
        let len = known.len as usize;
        if len > 0 {
            let start = known.start as usize;
            // The same bytes as a name read before, and then a byte that ends a name as it
            // ended there (not a name byte, not a `:`): `name` would read the same.
            if let (Some(found), Some(before), Some(&after)) = (
                text.get(at..at + len),
                text.get(start..start + len),
                text.get(at + len),
            ) && found == before
                && CLASS[after as usize] & NAME == 0
                && after != b':'
            {
                return Some((at + len, at + known.local as usize));
            }
        }
        let (end, local) = name(text, at)?;
        if let (Ok(start), Ok(len), Ok(local)) = (
            u32::try_from(at),
            u16::try_from(end - at),
            u16::try_from(local - at),
        ) {
            self.0[slot] = KnownName { start, len, local };
        }
        Some((end, local))
    }
}

/// A tag of a recognized element. Positions are byte offsets into the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Token {
    /// A start tag (`<a ...>`), or an empty element (`<a .../>`) when `empty`.
    Open {
        /// The `<`.
        start: u32,
        /// The end of the name (it starts after the `<`).
        name_end: u32,
        /// Where the name's local part starts (after the `<`: no prefix).
        local_start: u32,
        /// The tag's attributes end at this index of [`Fragment::attrs`] (they start where the
        /// previous tag's end).
        attrs_end: u32,
        /// Just past the `>`.
        end: u32,
        empty: bool,
    },
    /// An end tag; `end` is just past its `>`.
    Close { end: u32 },
    /// Text before an end tag, or beside a reference (not empty; what quick-xml reads as one
    /// text event): line ends maybe to normalise.
    Text { start: u32, end: u32 },
    /// A reference in text, `&name;` or `&#n;` (`start` at its `&`, `end` past its `;`): what
    /// quick-xml reads as a reference event, to resolve.
    Reference { start: u32, end: u32 },
}

/// An attribute of a recognized tag: its name and its raw value (between the quotes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PlainAttr {
    pub name_start: u32,
    pub name_end: u32,
    /// Where the name's local part starts (`name_start`: no prefix).
    pub local_start: u32,
    pub value_start: u32,
    pub value_end: u32,
    /// Whether the value is its raw text: no reference to resolve, no white space to
    /// normalise (else quick-xml's normaliser reads it, as it does for quick-xml's events).
    pub plain: bool,
}

/// Deeper nesting than this inside one element is left to quick-xml.
const MAX_NESTING: usize = 64;
/// A tag with more attributes than this is left to quick-xml (the duplicate check here is
/// quadratic).
const MAX_ATTRS: usize = 32;

impl Fragment {
    /// Room for what a modeler file of `bytes` holds when it is read as one element (one
    /// token per ~40 bytes, one attribute per ~100): grown from empty, the buffers were
    /// copied through a dozen reallocations per file. (Untouched capacity costs no page.)
    pub fn with_capacity_for(bytes: usize) -> Self {
        Fragment {
            tokens: Vec::with_capacity(bytes / 40),
            attrs: Vec::with_capacity(bytes / 100),
            open: Vec::new(),
            tag_names: KnownNames::default(),
            attr_names: KnownNames::default(),
        }
    }
}

/// What a byte can be, as bits (one table look-up per byte: this loop reads half a modeler
/// file).
const SPACE: u8 = 1;
const NAME_START: u8 = 2;
const NAME: u8 = 4;
/// A byte of a plain attribute value, quotes left out.
const VALUE: u8 = 8;
/// A byte of plain text between tags.
const TEXT: u8 = 16;
/// A byte of the name of a reference (`&lt;`, `&#34;`, `&#x22;`).
const REFERENCE: u8 = 32;

static CLASS: [u8; 256] = classes();

const fn classes() -> [u8; 256] {
    let mut table = [0; 256];
    let mut b = 0;
    while b < 256 {
        let byte = b as u8;
        let mut class = 0;
        if matches!(byte, b' ' | b'\t' | b'\r' | b'\n') {
            class |= SPACE;
        }
        if byte.is_ascii_alphabetic() || byte == b'_' {
            class |= NAME_START | NAME;
        }
        if byte.is_ascii_digit() || byte == b'.' || byte == b'-' {
            class |= NAME;
        }
        if byte >= 0x20 && !matches!(byte, b'&' | b'<' | b'>' | b'"' | b'\'' | 0x7f) {
            class |= VALUE;
        }
        if (byte >= 0x20 && !matches!(byte, b'&' | b'<' | 0x7f))
            || matches!(byte, b'\t' | b'\r' | b'\n')
        {
            class |= TEXT;
        }
        if byte.is_ascii_alphanumeric() || byte == b'#' {
            class |= REFERENCE;
        }
        table[b] = class;
        b += 1;
    }
    table
}

/// The end of the run of bytes of `class` from `at`.
#[inline(always)]
fn run_of(text: &[u8], mut at: usize, class: u8) -> usize {
    // Many runs are empty or one byte long (the space between attributes).
    match text.get(at) {
        Some(&b) if CLASS[b as usize] & class != 0 => at += 1,
        _ => return at,
    }
    // Eight bytes at a time (unrolled, no bounds check per byte), then the tail.
    while let Some(chunk) = text.get(at..).and_then(<[u8]>::first_chunk::<8>) {
        match chunk.iter().position(|&b| CLASS[b as usize] & class == 0) {
            Some(length) => return at + length,
            None => at += 8,
        }
    }
    while let Some(&b) = text.get(at) {
        if CLASS[b as usize] & class == 0 {
            break;
        }
        at += 1;
    }
    at
}

/// The number of white space bytes at `at`.
#[inline]
pub(crate) fn space(text: &[u8], at: usize) -> usize {
    run_of(text, at, SPACE).saturating_sub(at)
}

/// The end of the name at `at` (`part` or `prefix:part`, each part a name start character and
/// then name characters) and where its local part starts.
#[inline]
fn name(text: &[u8], at: usize) -> Option<(usize, usize)> {
    if CLASS[*text.get(at)? as usize] & NAME_START == 0 {
        return None;
    }
    let end = run_of(text, at + 1, NAME);
    if text.get(end) != Some(&b':') {
        return Some((end, at));
    }
    let local = end + 1;
    if CLASS[*text.get(local)? as usize] & NAME_START == 0 {
        return None;
    }
    Some((run_of(text, local + 1, NAME), local))
}

/// The end of the name of the start tag at `at` (its `<`), when it is a plain start tag's, and
/// where its local part starts.
pub(crate) fn start_tag_name(text: &[u8], at: usize) -> Option<(usize, usize)> {
    if text.get(at) != Some(&b'<') {
        return None;
    }
    name(text, at + 1)
}

/// Recognizes the element whose start tag's `<` is at `at`, with everything inside it, as long
/// as it holds at most `budget` elements. `Ok`: the offset just past its last `>`, the element
/// in `out`. `Err`: not plain (or too large); the offset where reading stopped, to account for
/// the bytes read in vain.
#[inline(never)]
pub(crate) fn element(
    text: &[u8],
    at: usize,
    budget: usize,
    out: &mut Fragment,
) -> Result<usize, usize> {
    out.tokens.clear();
    out.attrs.clear();
    out.open.clear();
    // Positions of names read before refer to the text of the last call.
    out.tag_names.clear();
    out.attr_names.clear();
    let mut i = at;
    let mut elements = 0;
    loop {
        // At a `<`.
        if text.get(i + 1) == Some(&b'/') {
            i = end_tag(text, i + 2, out).ok_or(i)?;
            if out.open.is_empty() {
                return Ok(i);
            }
        } else {
            let (end, empty) = start_tag(text, i, out).ok_or(i)?;
            elements += 1;
            if elements > budget {
                return Err(i);
            }
            i = end;
            if empty && out.open.is_empty() {
                return Ok(i);
            }
        }
        // Between tags. Text before a start tag is not kept whatever it is: opening the
        // element drops its parent's text (mixed content carries nothing), so only text
        // before an end tag is handed on, or text with references (each is resolved, and
        // refused when unknown, wherever it is), cut as quick-xml cuts it: text, reference,
        // text.
        let mut piece_start = i;
        let mut text_end = run_of(text, i, TEXT);
        let mut references = false;
        while text.get(text_end) == Some(&b'&') {
            let name_end = run_of(text, text_end + 1, REFERENCE);
            if name_end == text_end + 1 || text.get(name_end) != Some(&b';') {
                return Err(text_end);
            }
            if text_end > piece_start {
                out.tokens.push(Token::Text {
                    start: piece_start as u32,
                    end: text_end as u32,
                });
            }
            out.tokens.push(Token::Reference {
                start: text_end as u32,
                end: name_end as u32 + 1,
            });
            references = true;
            piece_start = name_end + 1;
            text_end = run_of(text, piece_start, TEXT);
        }
        if text_end > piece_start && (references || text.get(text_end + 1) == Some(&b'/')) {
            out.tokens.push(Token::Text {
                start: piece_start as u32,
                end: text_end as u32,
            });
        }
        i = text_end;
        if text.get(i) != Some(&b'<') {
            return Err(i);
        }
    }
}

/// Reads the start tag at `at` into `out`: where it ends and whether it is an empty element.
fn start_tag(text: &[u8], at: usize, out: &mut Fragment) -> Option<(usize, bool)> {
    if text.get(at) != Some(&b'<') {
        return None;
    }
    let (name_end, local_start) = out.tag_names.name::<8>(text, at + 1)?;
    let attrs_start = out.attrs.len();
    let mut i = name_end;
    let empty = loop {
        let spaces = space(text, i);
        i += spaces;
        match *text.get(i)? {
            b'>' => {
                i += 1;
                break false;
            }
            b'/' if text.get(i + 1) == Some(&b'>') => {
                i += 2;
                break true;
            }
            _ if spaces > 0 => i = attribute(text, i, attrs_start, out)?,
            _ => return None,
        }
    };
    if !empty {
        if out.open.len() >= MAX_NESTING {
            return None;
        }
        out.open.push((at as u32 + 1, name_end as u32));
    }
    out.tokens.push(Token::Open {
        start: at as u32,
        name_end: name_end as u32,
        local_start: local_start as u32,
        attrs_end: out.attrs.len() as u32,
        end: i as u32,
        empty,
    });
    Some((i, empty))
}

/// Reads the attribute at `at` (its name's first byte) into `out`: where it ends.
fn attribute(text: &[u8], at: usize, attrs_start: usize, out: &mut Fragment) -> Option<usize> {
    let (name_end, local_start) = out.attr_names.name::<2>(text, at)?;
    let key = &text[at..name_end];
    // Namespace declarations change how names resolve: quick-xml's reading handles them.
    if key.starts_with(b"xmlns") || out.attrs.len() - attrs_start >= MAX_ATTRS {
        return None;
    }
    // (Compared inline: names are short, and most differ in length.)
    if out.attrs[attrs_start..].iter().any(|a| {
        let other = &text[a.name_start as usize..a.name_end as usize];
        other.len() == key.len() && other.iter().zip(key).all(|(x, y)| x == y)
    }) {
        return None;
    }
    if text.get(name_end) != Some(&b'=') {
        return None;
    }
    let quote = *text.get(name_end + 1)?;
    if quote != b'"' && quote != b'\'' {
        return None;
    }
    let value_start = name_end + 2;
    let mut value_end = run_of(text, value_start, VALUE);
    let mut plain = true;
    while *text.get(value_end)? != quote {
        match text[value_end] {
            // The other quote is plain too.
            b'"' | b'\'' => {}
            // References and white space to normalise: left to quick-xml's normaliser.
            b'&' | b'\t' | b'\n' | b'\r' => plain = false,
            _ => return None,
        }
        value_end = run_of(text, value_end + 1, VALUE);
    }
    out.attrs.push(PlainAttr {
        name_start: at as u32,
        name_end: name_end as u32,
        local_start: local_start as u32,
        value_start: value_start as u32,
        value_end: value_end as u32,
        plain,
    });
    Some(value_end + 1)
}

/// Reads the end tag whose name starts at `at` (past the `</`), which must close the innermost
/// open element: where it ends.
fn end_tag(text: &[u8], at: usize, out: &mut Fragment) -> Option<usize> {
    // The name must be the start tag's, which was checked: compared, not scanned again.
    let (start, end) = out.open.pop()?;
    let expected = &text[start as usize..end as usize];
    let name_end = at + expected.len();
    let found = text.get(at..name_end)?;
    if found != expected || text.get(name_end) != Some(&b'>') {
        return None;
    }
    out.tokens.push(Token::Close {
        end: name_end as u32 + 1,
    });
    Some(name_end + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tags recognized in `xml` from its first `<`, written back as text.
    fn recognize(xml: &str) -> Result<(usize, Vec<String>), usize> {
        let mut out = Fragment::default();
        let end = element(xml.as_bytes(), xml.find('<').unwrap(), 100, &mut out)?;
        let mut attrs = out.attrs.iter();
        let tags = out
            .tokens
            .iter()
            .map(|token| match *token {
                Token::Open {
                    start,
                    name_end,
                    attrs_end,
                    end,
                    empty,
                    ..
                } => {
                    let mut tag = xml[start as usize + 1..name_end as usize].to_owned();
                    let taken = attrs_end as usize - (out.attrs.len() - attrs.len());
                    for a in attrs.by_ref().take(taken) {
                        tag.push_str(&format!(
                            " {}={}",
                            &xml[a.name_start as usize..a.name_end as usize],
                            &xml[a.value_start as usize..a.value_end as usize]
                        ));
                    }
                    assert_eq!(xml.as_bytes()[end as usize - 1], b'>');
                    if empty { format!("{tag}/") } else { tag }
                }
                Token::Close { end } => {
                    assert_eq!(xml.as_bytes()[end as usize - 1], b'>');
                    format!("/{end}")
                }
                Token::Text { start, end } => {
                    format!("{:?}", &xml[start as usize..end as usize])
                }
                Token::Reference { start, end } => xml[start as usize..end as usize].to_owned(),
            })
            .collect();
        Ok((end, tags))
    }

    #[test]
    fn a_modeler_shape_is_recognized_with_its_positions() {
        let xml = "  <bpmndi:BPMNShape id=\"S_1\" bpmnElement='T_1'>\n    <dc:Bounds x=\"1\" y=\"2\" width=\"3\" height=\"4\" />\n  </bpmndi:BPMNShape>\n<next/>";
        let (end, tags) = recognize(xml).unwrap();
        assert_eq!(&xml[..end], xml.split_once("\n<next").unwrap().0);
        assert_eq!(
            tags,
            [
                "bpmndi:BPMNShape id=S_1 bpmnElement=T_1",
                "dc:Bounds x=1 y=2 width=3 height=4/",
                "\"\\n  \"",
                &format!("/{end}"),
            ]
        );
        let (end, tags) = recognize("<bpmn:incoming>Flow_1</bpmn:incoming>").unwrap();
        assert_eq!(
            (end, tags),
            (
                37,
                vec!["bpmn:incoming".into(), "\"Flow_1\"".into(), "/37".into()]
            )
        );
        let (_, tags) = recognize("<c>= x > 5 ]]> é\r\n</c>").unwrap();
        assert_eq!(tags[1], "\"= x > 5 ]]> é\\r\\n\"");
        assert_eq!(recognize("<a/>x").unwrap(), (4, vec!["a/".into()]));
    }

    #[test]
    fn anything_beyond_the_plain_subset_is_left_to_quick_xml() {
        for bad in [
            "<a><!-- c --></a>",
            "<a><?pi?></a>",
            "<a><![CDATA[x]]></a>",
            "<a>&</a>",
            "<a>&;</a>",
            "<a>&l t;</a>",
            "<a>&lt</a>",
            "<a>&a.b;</a>",
            "<a x=\"<\"/>",
            "<a x=\"1\" x=\"2\"/>",
            "<a xmlns=\"urn:x\"/>",
            "<a xmlns:p=\"urn:x\"/>",
            "<a x=1/>",
            "<a x = \"1\"/>",
            "<a x=\"1\"y=\"2\"/>",
            "<a x=\"1/>",
            "<a></b>",
            "<a></a >",
            "<a><b></a></b>",
            "<a>",
            "<a/",
            "<1a/>",
            "<a:b:c/>",
            "<:a/>",
            "<a:/>",
            "<é/>",
            "<a>x\u{1}</a>",
            "<a/ >",
        ] {
            assert!(recognize(bad).is_err(), "{bad}");
        }
        // Nesting and size beyond the limits.
        let deep = format!(
            "{}{}",
            "<a>".repeat(MAX_NESTING + 1),
            "</a>".repeat(MAX_NESTING + 1)
        );
        assert!(recognize(&deep).is_err());
        let mut out = Fragment::default();
        assert!(element(b"<a><b/><b/></a>", 0, 2, &mut out).is_err());
        assert_eq!(element(b"<a><b/><b/></a>", 0, 3, &mut out), Ok(15));
    }

    #[test]
    fn a_name_read_before_is_recognised_only_when_it_ends_where_it_ended() {
        // `bpmn:x` is known when `bpmn:xy`, `bpmn:x:y` and `x` in `xy=` are read.
        let (_, tags) =
            recognize("<r><bpmn:x x=\"1\" xy=\"2\"/><bpmn:xy x=\"3\"/><bpmn:x/></r>").unwrap();
        assert_eq!(tags[1..4], ["bpmn:x x=1 xy=2/", "bpmn:xy x=3/", "bpmn:x/"]);
        assert!(recognize("<r><bpmn:x/><bpmn:x:y/></r>").is_err());
        assert!(recognize("<r><a x=\"1\"/><a x:y:z=\"1\"/></r>").is_err());
        let mut out = Fragment::default();
        let xml = b"<r><bpmn:x/></r>";
        assert!(element(xml, 0, 10, &mut out).is_ok());
        // Another text: what was known of the last one is forgotten.
        assert!(element(b"<r><bpmn:y/></r>", 0, 10, &mut out).is_ok());
        let Token::Open { name_end, .. } = out.tokens[1] else {
            panic!("{:?}", out.tokens)
        };
        assert_eq!(name_end, 10);
    }

    #[test]
    fn text_with_references_is_cut_as_quick_xml_cuts_it() {
        let (_, tags) = recognize("<a>x &lt; y&#33;</a>").unwrap();
        assert_eq!(tags, ["a", "\"x \"", "&lt;", "\" y\"", "&#33;", "/20"]);
        // Beside a start tag too: each reference is resolved (and refused when unknown).
        let (_, tags) = recognize("<a>&amp;<b/></a>").unwrap();
        assert_eq!(tags, ["a", "&amp;", "b/", "/16"]);
    }

    #[test]
    fn the_other_quote_and_non_ascii_values_are_plain() {
        let (_, tags) = recognize("<a x=\"it's\" y='say \"é\"'/>").unwrap();
        assert_eq!(tags, ["a x=it's y=say \"é\"/"]);
    }

    #[test]
    fn values_to_unescape_or_normalise_are_marked() {
        let xml = "<a x=\"1\" y=\"&#34;b&#34;\" z='1\t2\r\n' w=\"&nope\"/>";
        let mut out = Fragment::default();
        assert!(element(xml.as_bytes(), 0, 10, &mut out).is_ok());
        let plain: Vec<bool> = out.attrs.iter().map(|a| a.plain).collect();
        assert_eq!(plain, [true, false, false, false]);
    }
}
