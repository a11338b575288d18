/**
 * `tessera-mcp/testing`: run a tool, prompt or resource through a real
 * server pipeline in memory, with scripted answers per question key, and get
 * the result and a transcript of every round; a clock to move by hand; states
 * to tamper with, replay or move, checked refused. See docs/testing.md.
 */

export { testServer, TestServer, ALL_CAPABILITIES, type ServerFactory, type TestServerOptions, type CallOptions, type RetryChange, type SharedTestState } from './testing/test-server.js';
export { Run, type Exchange, type PendingFlow, type RoundRecord, type LoggedLine } from './testing/exchange.js';
export { accept, decline, cancel, sampled, roots, UnscriptedQuestionError, type Script, type ScriptedAnswer, type AnswerFunction, type AnswerContext } from './testing/scripted-answers.js';
export { tamper, assertRefused, REFUSED_STATE, StateNotRefusedError } from './testing/state-attacks.js';
export { TestClock } from './testing/test-clock.js';
