//! The request handler of every service front end: `fourfold serve` (JSON lines on stdin and
//! stdout) and its HTTP API call [`Service::handle`], so both answer the same question with
//! the same words.
//!
//! This module owns the request and response shapes (serde) and the mapping of a request to
//! one [`Engine`] call. It does no I/O, holds no queue and no socket (the command does), and
//! it neither parses positions nor scores them: the engine does, and its [`Error`]'s `Display`
//! is the message of every error response.
//!
//! ```
//! use fourfold::service::{Request, Service};
//! use fourfold::{BoardSize, Engine, SolverBuilder};
//!
//! let engine = Engine::new(BoardSize::STANDARD, SolverBuilder::default().table_mib(16))?;
//! let service = Service::new(engine);
//! let r = service.handle_line(r#"{"id": 7, "op": "solve", "position": "44455554221"}"#);
//! let json = serde_json::to_value(&r).unwrap();
//! assert_eq!(json["id"], 7);
//! // The same answer as the engine's, with the best move 1-indexed.
//! let s = service.engine().solve("44455554221")?;
//! assert_eq!(json["score"], s.score);
//! let a = service.engine().analyze("44455554221")?;
//! let best = json["best_move"].as_u64().unwrap() as usize;
//! assert_eq!(a.scores[best - 1], Some(s.score));
//! let bad = service.handle(&Request::new("analyze", "448").unwrap());
//! assert_eq!(bad.status(), 400);
//! # Ok::<(), fourfold::Error>(())
//! ```

use crate::engine::{Engine, Error, ErrorKind};
use crate::outcome::{Outcome, Player};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// What a request asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Op {
    /// The exact score and a best move ([`Engine::solve`]).
    Solve,
    /// Win, draw or loss and a move that keeps it ([`Engine::solve_weak`]).
    SolveWeak,
    /// The score of every column ([`Engine::analyze`]).
    Analyze,
}

impl Op {
    /// Every op, in the order of the docs.
    pub const ALL: [Op; 3] = [Op::Solve, Op::SolveWeak, Op::Analyze];

    /// The op's name in requests (`"solve"`, `"solve_weak"`, `"analyze"`).
    pub fn name(self) -> &'static str {
        match self {
            Op::Solve => "solve",
            Op::SolveWeak => "solve_weak",
            Op::Analyze => "analyze",
        }
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Op {
    type Err = Failure;

    fn from_str(s: &str) -> Result<Op, Failure> {
        Op::ALL
            .into_iter()
            .find(|op| op.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = Op::ALL.iter().map(|o| o.name()).collect();
                Failure::new(
                    FailureKind::UnknownOp,
                    format!("unknown op {s:?}; expected one of {}", names.join(", ")),
                )
            })
    }
}

/// One request: `{"id": .., "op": "analyze", "position": "4453"}`. The id is any JSON value,
/// echoed in the response; the position is a move string (1-indexed columns, `""` for the
/// empty board).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// Echoed in the response (`null` when absent).
    #[serde(default)]
    pub id: Value,
    /// What to compute.
    pub op: Op,
    /// The move string.
    pub position: String,
    /// `analyze` only: search for at most this many milliseconds (on top of the service's
    /// own time limit), then answer with a timeout carrying each column's proven bounds
    /// (`columns`). Asking again goes on from the table: a front end slices a long analysis
    /// this way, shows the bounds between slices, and stops asking when its user moves on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_ms: Option<u64>,
}

/// The largest `budget_ms` accepted: one day.
pub const MAX_BUDGET_MS: u64 = 86_400_000;

impl Request {
    /// A request without an id.
    ///
    /// An unknown `op` gives a request whose answer is the unknown-op error; use
    /// [`Op::from_str`] to check it first.
    pub fn new(op: &str, position: &str) -> Result<Request, Failure> {
        Ok(Request {
            id: Value::Null,
            op: op.parse()?,
            position: position.to_string(),
            budget_ms: None,
        })
    }

    /// Checks and sets `budget_ms` (see [`Request::budget_ms`]): a whole number of
    /// milliseconds from 1 to [`MAX_BUDGET_MS`], for `analyze` only.
    pub fn with_budget_ms(mut self, budget: &Value) -> Result<Request, Failure> {
        let ms = budget
            .as_u64()
            .filter(|ms| (1..=MAX_BUDGET_MS).contains(ms))
            .ok_or_else(|| {
                Failure::new(
                    FailureKind::BadRequest,
                    format!(
                        "budget_ms must be a whole number of milliseconds from 1 to {MAX_BUDGET_MS}, not {budget}"
                    ),
                )
            })?;
        if self.op != Op::Analyze {
            return Err(Failure::new(
                FailureKind::BadRequest,
                format!("budget_ms applies to analyze only, not to {}", self.op),
            ));
        }
        self.budget_ms = Some(ms);
        Ok(self)
    }

    /// Reads a request from one line of JSON. On failure, the error carries the request's id
    /// when the line was a JSON object with one.
    pub fn from_json(line: &str) -> Result<Request, (Value, Failure)> {
        let v: Value = serde_json::from_str(line).map_err(|e| {
            (
                Value::Null,
                Failure::new(FailureKind::BadRequest, format!("not JSON: {e}")),
            )
        })?;
        let Value::Object(map) = v else {
            return Err((
                Value::Null,
                Failure::new(
                    FailureKind::BadRequest,
                    "a request is a JSON object: {\"id\": .., \"op\": .., \"position\": ..}",
                ),
            ));
        };
        let id = map.get("id").cloned().unwrap_or(Value::Null);
        let fail = |kind, msg: String| (id.clone(), Failure::new(kind, msg));
        if let Some(k) = map
            .keys()
            .find(|k| !["id", "op", "position", "budget_ms"].contains(&k.as_str()))
        {
            return Err(fail(
                FailureKind::BadRequest,
                format!("unknown field {k:?}; a request has id, op, position and budget_ms"),
            ));
        }
        let op = match map.get("op") {
            None => return Err(fail(FailureKind::BadRequest, "missing field \"op\"".into())),
            Some(Value::String(s)) => s.parse().map_err(|e| (id.clone(), e))?,
            Some(other) => {
                return Err(fail(
                    FailureKind::BadRequest,
                    format!("field \"op\" must be a string, not {other}"),
                ))
            }
        };
        let position = match map.get("position") {
            None => {
                return Err(fail(
                    FailureKind::BadRequest,
                    "missing field \"position\"".into(),
                ))
            }
            Some(Value::String(s)) => s.clone(),
            Some(other) => {
                return Err(fail(
                    FailureKind::BadRequest,
                    format!("field \"position\" must be a string of column digits, not {other}"),
                ))
            }
        };
        let req = Request {
            id: id.clone(),
            op,
            position,
            budget_ms: None,
        };
        match map.get("budget_ms") {
            None => Ok(req),
            Some(b) => req.with_budget_ms(b).map_err(|e| (id.clone(), e)),
        }
    }
}

/// Where an answer came from (the engine's [`crate::Source`], as JSON).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// A search by the engine.
    Search,
    /// The engine's opening book: no search.
    Book,
}

impl From<crate::Source> for Source {
    fn from(s: crate::Source) -> Source {
        match s {
            crate::Source::Search => Source::Search,
            crate::Source::Book => Source::Book,
        }
    }
}

/// A successful answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Answer {
    /// The op answered.
    pub op: Op,
    /// The move string asked about.
    pub position: String,
    /// Stones on the board.
    pub moves: u32,
    /// `"first"` or `"second"`: the player to move.
    pub to_move: &'static str,
    /// The score for the player to move: exact for `solve` and `analyze` (the best column's),
    /// -1/0/1 for `solve_weak`; `null` for `analyze` of a full board.
    pub score: Option<i32>,
    /// A best column, 1-indexed; `null` on a full board.
    pub best_move: Option<usize>,
    /// The score in words: "first player wins on move 41", "draw", and for `solve_weak`
    /// "first player wins" (no move number: a weak score does not say when).
    pub outcome: Option<String>,
    /// `analyze` only: the score of each column (`null` for a full column).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scores: Option<Vec<Option<i32>>>,
    /// `analyze` only: each column's score in words (`null` for a full column).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcomes: Option<Vec<Option<String>>>,
    /// `analyze` only: for each column, true when playing there wins at once.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wins_now: Option<Vec<bool>>,
    /// Nodes searched.
    pub nodes: u64,
    /// Wall time in microseconds.
    pub micros: u64,
    /// Where the answer came from.
    pub source: Source,
}

/// The kinds of failure, machine-readable (`"bad_position"`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// Not a request: bad JSON, a missing or malformed field or parameter, a query too long.
    BadRequest,
    /// An op this service does not know.
    UnknownOp,
    /// The move string is not a legal, unfinished game on the service's board (bad
    /// character, column out of range, full column, move after a win).
    BadPosition,
    /// The per-request time limit (or an `analyze` request's `budget_ms`) stopped the
    /// search; `lower`/`upper` carry the position's proven bounds, and for `analyze`,
    /// `columns` each column's.
    Timeout,
    /// Too many requests are waiting (HTTP 503); try again later.
    Busy,
    /// HTTP: no such page or API path (404).
    NotFound,
    /// HTTP: a method other than GET or HEAD (405, with `Allow: GET, HEAD`).
    MethodNotAllowed,
    /// Anything else (the engine could not answer).
    Internal,
}

impl FailureKind {
    /// The HTTP status of a failure of this kind.
    pub fn status(self) -> u16 {
        match self {
            FailureKind::BadRequest | FailureKind::UnknownOp | FailureKind::BadPosition => 400,
            // The brief of the API: a stopped search is an answer (the bounds), not an error
            // of the client or the server.
            FailureKind::Timeout => 200,
            FailureKind::Busy => 503,
            FailureKind::NotFound => 404,
            FailureKind::MethodNotAllowed => 405,
            FailureKind::Internal => 500,
        }
    }
}

/// An error response: `{"error": {"kind": "bad_position", "message": "..."}}`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Failure {
    /// What went wrong, for programs.
    pub kind: FailureKind,
    /// What went wrong, for people: for engine errors, [`Error`]'s `Display`.
    pub message: String,
    /// For a timeout: the score is at least this.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lower: Option<i32>,
    /// For a timeout: the score is at most this.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upper: Option<i32>,
    /// For a timeout: nodes searched before the stop.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u64>,
    /// For a timeout: microseconds before the stop.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub micros: Option<u64>,
    /// For an `analyze` timeout: what was proven of each column (serialised in place:
    /// `columns` and `wins_now` beside `lower`/`upper`).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub analysis: Option<Box<PartialColumns>>,
}

/// What an `analyze` timeout proved of each column.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PartialColumns {
    /// Each column's proven bounds (`null` for a full column): exact where `lower == upper`.
    pub columns: Vec<Option<ColumnBounds>>,
    /// For each column, true when playing there wins at once (as in the answer), so that a
    /// front end can let its user play on before the end.
    pub wins_now: Vec<bool>,
}

/// The proven bounds of one column's score in an `analyze` timeout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ColumnBounds {
    /// The score is at least this.
    pub lower: i32,
    /// The score is at most this.
    pub upper: i32,
}

impl Failure {
    /// A failure with a message and no bounds.
    pub fn new(kind: FailureKind, message: impl Into<String>) -> Failure {
        Failure {
            kind,
            message: message.into(),
            lower: None,
            upper: None,
            nodes: None,
            micros: None,
            analysis: None,
        }
    }

    /// The failure of an engine call for `op`; `wins_now` is the position's (for an
    /// `analyze` timeout). Every kind of engine error is named (no catch-all), so a new one
    /// must be given its failure kind here: what the request got wrong is `bad_position` or
    /// `bad_request` (400); what the server could not do (its book, its table, its files) is
    /// `internal` (500).
    fn from_engine(op: Op, e: Error, wins_now: &[bool]) -> Failure {
        let message = e.to_string();
        match e.kind() {
            ErrorKind::Position(_) => Failure::new(FailureKind::BadPosition, message),
            // A column the board lacks or an empty search window: the request's numbers.
            ErrorKind::Board(_) | ErrorKind::Window(_) => {
                Failure::new(FailureKind::BadRequest, message)
            }
            // The service's own solver, book and checkpoint files.
            ErrorKind::Build(_) | ErrorKind::Book(_) | ErrorKind::Checkpoint(_) => {
                Failure::new(FailureKind::Internal, message)
            }
            ErrorKind::Interrupted(i) => Failure {
                kind: FailureKind::Timeout,
                message,
                lower: Some(i.lower),
                upper: Some(i.upper),
                nodes: Some(i.nodes),
                micros: Some(micros(i.elapsed)),
                // An analysis says what it proved of each column.
                analysis: (op == Op::Analyze).then(|| {
                    Box::new(PartialColumns {
                        columns: i
                            .columns
                            .iter()
                            .map(|c| {
                                c.map(|b| ColumnBounds {
                                    lower: b.lower,
                                    upper: b.upper,
                                })
                            })
                            .collect(),
                        wins_now: wins_now.to_vec(),
                    })
                }),
            },
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Failure {}

/// A response: the request's id and an answer or an error. Serialised flat:
/// `{"id": 1, "op": "solve", "score": ..}` or `{"id": 1, "error": {"kind": .., "message": ..}}`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Response {
    /// The request's id (`null` when it had none or could not be read).
    pub id: Value,
    /// The answer, or why there is none.
    #[serde(flatten)]
    pub body: Body,
}

/// The body of a [`Response`].
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Body {
    /// The answer.
    Answer(Answer),
    /// The error.
    Error {
        /// What went wrong.
        error: Failure,
    },
}

impl Response {
    /// An error response.
    pub fn failure(id: Value, error: Failure) -> Response {
        Response {
            id,
            body: Body::Error { error },
        }
    }

    /// The HTTP status of this response: 200, 400 for bad input, 503 when busy.
    pub fn status(&self) -> u16 {
        match &self.body {
            Body::Answer(_) => 200,
            Body::Error { error } => error.kind.status(),
        }
    }

    /// The answer, if any.
    pub fn answer(&self) -> Option<&Answer> {
        match &self.body {
            Body::Answer(a) => Some(a),
            Body::Error { .. } => None,
        }
    }

    /// The error, if any.
    pub fn error(&self) -> Option<&Failure> {
        match &self.body {
            Body::Answer(_) => None,
            Body::Error { error } => Some(error),
        }
    }

    /// One line of JSON (no newline).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|e| {
            format!(r#"{{"id":null,"error":{{"kind":"internal","message":"{e}"}}}}"#)
        })
    }
}

/// The service: an engine (one table, kept warm between requests) and the handler. Share it
/// between threads by reference: requests may be handled concurrently on one table.
#[derive(Debug)]
pub struct Service {
    engine: Engine,
}

fn micros(d: Duration) -> u64 {
    d.as_micros().min(u64::MAX as u128) as u64
}

impl Service {
    /// A service answering with `engine`. The engine's time limit
    /// ([`crate::SolverBuilder::time_limit`]) is the per-request time limit (for `analyze`,
    /// of all its columns together, as is a request's `budget_ms`).
    pub fn new(engine: Engine) -> Service {
        Service { engine }
    }

    /// The engine.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// True when `req` costs no search: the engine's book answers its position, or the
    /// position is not legal (an error answer). A front end may answer such requests at once
    /// instead of queueing them behind searches.
    pub fn is_instant(&self, req: &Request) -> bool {
        self.engine.check(&req.position).is_err() || self.engine.in_book(&req.position)
    }

    /// Answers one line of JSON; a bad line gets an error response.
    pub fn handle_line(&self, line: &str) -> Response {
        match Request::from_json(line) {
            Ok(r) => self.handle(&r),
            Err((id, e)) => Response::failure(id, e),
        }
    }

    /// Answers one request.
    pub fn handle(&self, req: &Request) -> Response {
        let body = match self.answer(req) {
            Ok(a) => Body::Answer(a),
            Err(error) => Body::Error { error },
        };
        Response {
            id: req.id.clone(),
            body,
        }
    }

    fn answer(&self, req: &Request) -> Result<Answer, Failure> {
        let e = &self.engine;
        let fail = |err: Error| Failure::from_engine(req.op, err, &[]);
        let info = e.check(&req.position).map_err(fail)?;
        let board = e.board();
        let moves = info.moves;
        let words = |score: i32| board.outcome(score, moves).map(|o| o.to_string());
        let mut a = Answer {
            op: req.op,
            position: req.position.clone(),
            moves,
            to_move: match Player::to_move(moves) {
                Player::First => "first",
                Player::Second => "second",
            },
            score: None,
            best_move: None,
            outcome: None,
            scores: None,
            outcomes: None,
            wins_now: None,
            nodes: 0,
            micros: 0,
            source: Source::Search,
        };
        match req.op {
            Op::Solve => {
                let s = e.solve(&req.position).map_err(fail)?;
                a.score = Some(s.score);
                a.best_move = s.best_move.map(|c| c + 1);
                a.outcome = words(s.score);
                (a.nodes, a.micros) = (s.nodes, micros(s.elapsed));
                a.source = s.source.into();
            }
            Op::SolveWeak => {
                let s = e.solve_weak(&req.position).map_err(fail)?;
                a.score = Some(s.score);
                a.best_move = s.best_move.map(|c| c + 1);
                let mover = Player::to_move(moves);
                a.outcome = Some(match s.score.signum() {
                    0 => Outcome::Draw.to_string(),
                    1 => format!("{mover} wins"),
                    _ => format!("{} wins", mover.other()),
                });
                (a.nodes, a.micros) = (s.nodes, micros(s.elapsed));
                a.source = s.source.into();
            }
            Op::Analyze => {
                // The whole analysis, not each column's search, keeps to the service's limit.
                let budget = match (req.budget_ms.map(Duration::from_millis), e.time_limit()) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (a, b) => a.or(b),
                };
                let an = e
                    .analyze_within(&req.position, budget)
                    .map_err(|err| Failure::from_engine(req.op, err, &info.winning))?;
                // The one tie-break rule: the same column as `solve`'s best move.
                let best = an.best_move();
                a.best_move = best.map(|c| c + 1);
                a.score = best.and_then(|c| an.scores[c]);
                a.outcome = if info.moves == board.cells() {
                    Some(Outcome::Draw.to_string())
                } else {
                    a.score.and_then(words)
                };
                a.outcomes = Some(an.scores.iter().map(|s| s.and_then(words)).collect());
                a.wins_now = Some(info.winning);
                a.scores = Some(an.scores);
                (a.nodes, a.micros) = (an.nodes, micros(an.elapsed));
                a.source = an.source.into();
            }
        }
        Ok(a)
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::{BoardSize, SolverBuilder};

    /// The engine errors no op of the service reaches today still get a fitting failure:
    /// an empty window is the request's (400), a checkpoint the server's (500); the message
    /// is the engine's.
    #[test]
    fn window_and_checkpoint_errors_map_to_their_failure_kinds() {
        let e = Engine::new(BoardSize::STANDARD, SolverBuilder::default().table_mib(1)).unwrap();
        let err = e.solve_window("", 2, 1).unwrap_err();
        let f = Failure::from_engine(Op::Solve, err.clone(), &[]);
        assert_eq!((f.kind, f.kind.status()), (FailureKind::BadRequest, 400));
        assert_eq!(f.message, err.to_string());
        let err = e.load_checkpoint("no-such-checkpoint").unwrap_err();
        let f = Failure::from_engine(Op::Solve, err.clone(), &[]);
        assert_eq!((f.kind, f.kind.status()), (FailureKind::Internal, 500));
        assert!(f.message.contains("no-such-checkpoint"), "{}", f.message);
        assert!(f.lower.is_none() && f.analysis.is_none());
    }
}
