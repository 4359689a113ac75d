//! A game's decision forms, described as data: the page renders any game's
//! description with one generic template and posts it back. A description
//! is a tree of [`Part`]s: groups (a fieldset with its legend, a box, a
//! side panel, a folded section, a numbered list), forms, fields, limits
//! on a sum of fields, notes and submit buttons.
//!
//! A form posts to the game's commands either `cmd` (a command's JSON,
//! the value of a [`Submit`] or of a choice field named `cmd`) or `build`
//! (the name of one of the game's forms) with its fields, which
//! [`super::Present::command_of_form`] turns into a command.

use serde::Serialize;

/// One piece of a decision form description.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Part {
    /// Parts held together, framed as `frame` says.
    Group(Group),
    /// One form: what it posts.
    Form(Form),
    /// A field to fill in.
    Field(Field),
    /// A limit on the sum of number fields, told while typing.
    Sum(Sum),
    /// A sentence.
    Note(Note),
    /// A submit button.
    Submit(Submit),
    /// Where a refusal of the form `build` is told, when it was refused.
    Refusal { build: String },
}

/// How a [`Group`] is framed.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "frame", rename_all = "snake_case")]
pub enum Frame {
    /// A fieldset with its legend.
    Fieldset { legend: String },
    /// A plain box.
    Box,
    /// A panel beside the rest, with its heading.
    Aside { heading: String },
    /// A folded section under its summary, shown unfolded when `open`.
    Folded { summary: String, open: bool },
    /// A numbered list of [`Frame::Item`]s.
    List,
    /// One item of a [`Frame::List`].
    Item,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Group {
    pub id: Option<String>,
    pub class: Option<String>,
    #[serde(flatten)]
    pub frame: Frame,
    pub parts: Vec<Part>,
}

impl Group {
    pub fn new(frame: Frame, parts: Vec<Part>) -> Group {
        Group { id: None, class: None, frame, parts }
    }

    pub fn id(mut self, id: impl Into<String>) -> Group {
        self.id = Some(id.into());
        self
    }

    pub fn class(mut self, class: impl Into<String>) -> Group {
        self.class = Some(class.into());
        self
    }
}

/// One form. Besides its parts it posts the page's token and position,
/// its `build` name (if any) and its hidden fields.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Form {
    pub id: Option<String>,
    pub class: Option<String>,
    /// The name [`super::Present::command_of_form`] knows this form by;
    /// `None` for a form whose buttons or choice carry whole commands.
    pub build: Option<String>,
    /// Hidden fields: name and value.
    pub hidden: Vec<(String, String)>,
    pub parts: Vec<Part>,
}

impl Form {
    pub fn new(parts: Vec<Part>) -> Form {
        Form { id: None, class: None, build: None, hidden: Vec::new(), parts }
    }

    pub fn id(mut self, id: impl Into<String>) -> Form {
        self.id = Some(id.into());
        self
    }

    pub fn class(mut self, class: impl Into<String>) -> Form {
        self.class = Some(class.into());
        self
    }

    pub fn build(mut self, build: impl Into<String>) -> Form {
        self.build = Some(build.into());
        self
    }

    pub fn hidden(mut self, name: impl Into<String>, value: impl Into<String>) -> Form {
        self.hidden.push((name.into(), value.into()));
        self
    }
}

/// One of a choice's options: the value posted and its words.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Choice {
    pub value: String,
    pub label: String,
}

impl Choice {
    pub fn new(value: impl Into<String>, label: impl Into<String>) -> Choice {
        Choice { value: value.into(), label: label.into() }
    }
}

/// What a [`Field`] holds.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Input {
    /// A whole number from `min` to `max`.
    Number { min: i64, max: i64 },
    /// One of the options; `blank` is the words of choosing none (posted
    /// empty), when that is allowed; `required` refuses a blank in the
    /// browser.
    One { options: Vec<Choice>, blank: Option<String>, required: bool },
    /// Any of the options (the field's name is posted once per option
    /// ticked); `values` are the ones ticked.
    Several { options: Vec<Choice>, values: Vec<String> },
    /// Ticked (posted as `on`) or not.
    Checkbox { checked: bool },
    /// Free text of at most `max_len` characters.
    Text { max_len: u32 },
}

/// A field: its name as posted, its words, what it holds and its value.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Field {
    /// The element's id on the page (the label points at it).
    pub id: String,
    pub name: String,
    pub label: String,
    /// The label is for screen readers only.
    pub label_hidden: bool,
    pub input: Input,
    /// The value shown (what was posted last, the current one, or a
    /// suggestion).
    pub value: String,
    /// The input's class.
    pub class: Option<String>,
    /// The class of a box around label and input; `None` for no box.
    pub wrap: Option<String>,
    /// The id of a part that describes the field (a [`Sum`]'s).
    pub described_by: Option<String>,
}

impl Field {
    pub fn new(id: impl Into<String>, name: impl Into<String>, label: impl Into<String>, input: Input) -> Field {
        Field {
            id: id.into(),
            name: name.into(),
            label: label.into(),
            label_hidden: false,
            input,
            value: String::new(),
            class: None,
            wrap: None,
            described_by: None,
        }
    }

    pub fn value(mut self, value: impl Into<String>) -> Field {
        self.value = value.into();
        self
    }

    pub fn class(mut self, class: impl Into<String>) -> Field {
        self.class = Some(class.into());
        self
    }

    pub fn wrap(mut self, class: impl Into<String>) -> Field {
        self.wrap = Some(class.into());
        self
    }

    pub fn described_by(mut self, id: impl Into<String>) -> Field {
        self.described_by = Some(id.into());
        self
    }

    pub fn label_hidden(mut self) -> Field {
        self.label_hidden = true;
        self
    }
}

/// "The numbers must add up to 6": the sum of the number fields named
/// `fields` must lie from `min` to `max`. The page counts while typing;
/// `words` say the limit before any typing (and without a script). The
/// rules still judge the command.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Sum {
    pub id: String,
    pub fields: Vec<String>,
    pub min: i64,
    pub max: i64,
    pub words: String,
}

/// A sentence: optional words in bold before it, the text (in an element
/// of its own with `text_id`, when given).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Note {
    pub id: Option<String>,
    pub class: Option<String>,
    pub lead: Option<String>,
    pub text: String,
    pub text_id: Option<String>,
}

impl Note {
    pub fn new(text: impl Into<String>) -> Note {
        Note { id: None, class: None, lead: None, text: text.into(), text_id: None }
    }

    /// A small note (help beside a form).
    pub fn small(text: impl Into<String>) -> Note {
        Note::new(text).class("small")
    }

    pub fn id(mut self, id: impl Into<String>) -> Note {
        self.id = Some(id.into());
        self
    }

    pub fn class(mut self, class: impl Into<String>) -> Note {
        self.class = Some(class.into());
        self
    }

    pub fn lead(mut self, lead: impl Into<String>, text_id: impl Into<String>) -> Note {
        self.lead = Some(lead.into());
        self.text_id = Some(text_id.into());
        self
    }
}

/// A submit button with its words. With `command` it posts that command
/// (as `cmd`); with `disabled` it is shown, greyed, with why.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Submit {
    pub id: Option<String>,
    pub class: Option<String>,
    pub label: String,
    /// The command's JSON, posted as `cmd`.
    pub command: Option<String>,
    /// Why it cannot be pressed yet, if it cannot.
    pub disabled: Option<String>,
}

impl Submit {
    pub fn new(label: impl Into<String>) -> Submit {
        Submit { id: None, class: None, label: label.into(), command: None, disabled: None }
    }

    pub fn command(mut self, json: impl Into<String>) -> Submit {
        self.command = Some(json.into());
        self
    }

    pub fn id(mut self, id: impl Into<String>) -> Submit {
        self.id = Some(id.into());
        self
    }

    pub fn class(mut self, class: impl Into<String>) -> Submit {
        self.class = Some(class.into());
        self
    }

    pub fn disabled(mut self, why: impl Into<String>) -> Submit {
        self.disabled = Some(why.into());
        self
    }
}

impl From<Group> for Part {
    fn from(g: Group) -> Part {
        Part::Group(g)
    }
}

impl From<Form> for Part {
    fn from(f: Form) -> Part {
        Part::Form(f)
    }
}

impl From<Field> for Part {
    fn from(f: Field) -> Part {
        Part::Field(f)
    }
}

impl From<Sum> for Part {
    fn from(s: Sum) -> Part {
        Part::Sum(s)
    }
}

impl From<Note> for Part {
    fn from(n: Note) -> Part {
        Part::Note(n)
    }
}

impl From<Submit> for Part {
    fn from(s: Submit) -> Part {
        Part::Submit(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_description_serialises_with_its_kinds_for_the_page() {
        let form: Part = Form::new(vec![
            Group::new(
                Frame::Fieldset { legend: "Pick".into() },
                vec![
                    Field::new("a", "hand.a", "A", Input::Number { min: 0, max: 6 }).value("2").into(),
                    Sum { id: "s".into(), fields: vec!["hand.a".into()], min: 6, max: 6, words: "six".into() }.into(),
                ],
            )
            .into(),
            Submit::new("Go").into(),
        ])
        .build("pick")
        .into();
        let v = serde_json::to_value(&form).unwrap();
        assert_eq!(v["kind"], "form");
        assert_eq!(v["build"], "pick");
        let group = &v["parts"][0];
        assert_eq!((group["kind"].as_str(), group["frame"].as_str()), (Some("group"), Some("fieldset")));
        assert_eq!(group["legend"], "Pick");
        assert_eq!(group["parts"][0]["input"], serde_json::json!({"type": "number", "min": 0, "max": 6}));
        assert_eq!(group["parts"][1]["kind"], "sum");
        assert_eq!(v["parts"][1]["label"], "Go");
    }
}
