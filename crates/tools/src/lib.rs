//! lspedit-tools: the operations agents call (`read_file`, `edit`, `write_file`, `apply_patch`)
//! over the write core, with the diagnostics of what a write broke, and the event stream the
//! floors above report through.

mod agent;
mod asynchronous;
mod baselines;
pub mod diagnostics;
pub mod events;
pub use lspedit_engine::front;
mod lsp_provider;
pub mod render;

pub use agent::{
    DiagnosticsFeedback, Done, EditReport, Gated, ReadReport, ToolResult, Tools, ToolsConfig,
    WriteFileReport, WrittenFile, offset_past_end,
};
pub use asynchronous::{AsyncTools, FromRefusal, run_blocking};
pub use diagnostics::{
    ChangedFile, CheckError, CheckReport, Deadlines, DiagnosticsConfig, DiagnosticsMode,
    DiagnosticsProvider, DiagnosticsStatus, Feedback, FileDiagnosticsStatus, MissingServer,
    OtherFileDiagnostics,
};
pub use events::{
    Event, EventSink, FanOut, JsonlSink, NullSink, PauseReason, RecordingSink, StepStage,
    StepStatus,
};
pub use lsp_provider::LspProvider;
