/**
 * `tessera-mcp/testing`: run a tool, prompt or resource through a real
 * server pipeline in memory, with scripted answers per question key, and get
 * the result and a transcript of every round; a clock to move by hand; states
 * to tamper with, replay or move, checked refused. See docs/testing.md.
 */

export { testServer, TestServer, ALL_CAPABILITIES, type ServerFactory, type TestServerOptions, type CallOptions, type RetryChange } from './test-server.js';
export { Run, type Exchange, type PendingFlow, type RoundRecord, type LoggedLine } from './exchange.js';
export { accept, decline, cancel, sampled, roots, UnscriptedQuestionError, type Script, type ScriptedAnswer, type AnswerFunction, type AnswerContext } from './scripted-answers.js';
export { tamper, assertRefused, REFUSED_STATE, StateNotRefusedError } from './state-attacks.js';
export { TestClock } from './test-clock.js';
