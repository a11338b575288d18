/**
 * The names Tessera records under. Where the OpenTelemetry semantic
 * conventions for MCP and GenAI define one (development status), it is used
 * as they spell it; what only Tessera has (MRTR flows, sealed state, tasks)
 * is under `tessera.`, so nothing squats on a convention's namespace.
 */

/** The instrumentation scope of every tracer and meter. */
export const INSTRUMENTATION_SCOPE = 'tessera-mcp';

// Attributes the conventions define.
export const ATTR_MCP_METHOD = 'mcp.method.name';
export const ATTR_MCP_PROTOCOL_VERSION = 'mcp.protocol.version';
export const ATTR_MCP_RESOURCE_URI = 'mcp.resource.uri';
export const ATTR_MCP_SESSION_ID = 'mcp.session.id';
export const ATTR_GEN_AI_TOOL_NAME = 'gen_ai.tool.name';
export const ATTR_GEN_AI_PROMPT_NAME = 'gen_ai.prompt.name';
export const ATTR_GEN_AI_OPERATION = 'gen_ai.operation.name';
export const ATTR_JSONRPC_REQUEST_ID = 'jsonrpc.request.id';
export const ATTR_RPC_RESPONSE_STATUS = 'rpc.response.status_code';
export const ATTR_ERROR_TYPE = 'error.type';
export const ATTR_NETWORK_TRANSPORT = 'network.transport';

/** `gen_ai.operation.name` of a tool call. */
export const OPERATION_EXECUTE_TOOL = 'execute_tool';
/** `error.type` of a tool result with `isError: true` (the conventions' value). */
export const ERROR_TOOL = 'tool_error';

// Tessera's own attributes.
/** `modern` (2026-07-28) or `legacy` (a 2025-11-25 session). */
export const ATTR_ERA = 'tessera.era';
/** The result's `resultType`: complete, input_required or task. */
export const ATTR_RESULT_TYPE = 'tessera.result_type';
/** The id every round of one multi round-trip call carries (sealed in requestState). */
export const ATTR_FLOW_ID = 'tessera.flow.id';
/** Which round of its flow a request is (1 for the first request). */
export const ATTR_FLOW_ROUND = 'tessera.flow.round';
/** Bytes of the requestState a round sealed. */
export const ATTR_STATE_BYTES = 'tessera.state.bytes';
/** Why a requestState was refused (a StateRejection). */
export const ATTR_STATE_REJECTION = 'tessera.state.rejection';
/** The names of the `ctx.once` steps that ran in a round. */
export const ATTR_ONCE_STEPS = 'tessera.once.steps';
/** A task's status (Tasks extension). */
export const ATTR_TASK_STATUS = 'tessera.task.status';

// Metrics the conventions define (histograms in seconds).
export const METRIC_SERVER_DURATION = 'mcp.server.operation.duration';
export const METRIC_CLIENT_DURATION = 'mcp.client.operation.duration';
/** The bucket boundaries the conventions advise for both duration histograms. */
export const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

// Tessera's own metrics.
export const METRIC_FLOW_ROUNDS = 'tessera.flow.rounds';
export const METRIC_STATE_SIZE = 'tessera.state.size';
export const METRIC_STATE_REJECTED = 'tessera.state.rejected';
export const METRIC_TASK_STATUS = 'tessera.task.status_changes';
