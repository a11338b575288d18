/**
 * A task created and polled until completed, as a chain of requests (one
 * unit = the call and its polls; a step per possible poll, ending early with
 * `done`).
 */

import { expectText, resultOf } from '../wire/checks.js';
import { taskCallTemplate, tasksGetBody, tasksGetHeaders, toolsCallHeaders, toolsListHeaders } from '../wire/requests.js';
import { TASK_JOB, TASK_TOOL, taskDoneText } from '../tools/tasks.js';
import { requireId, type FlowStep, type HttpFlow } from './http-flows.js';

/** Polls before a task that is still working counts as an error (its work completes at once). */
const MAX_POLLS = 8;

const taskCall: FlowStep = {
  headers: toolsCallHeaders(TASK_TOOL),
  body: taskCallTemplate(TASK_TOOL, { job: TASK_JOB }),
  check(status, body, context) {
    const result = resultOf(status, body, requireId(context));
    if (typeof result === 'string') return result;
    if (result.resultType !== 'task' || typeof result.taskId !== 'string') return `resultType ${String(result.resultType)}, expected task`;
    if (result.status !== 'working' && result.status !== 'completed') return `new task ${String(result.status)}`;
    context.taskId = result.taskId;
    return undefined;
  },
};

const taskPoll = (last: boolean): FlowStep => ({
  headers: toolsListHeaders(), // replaced by headersFor: Mcp-Name carries the task id
  headersFor: (context) => tasksGetHeaders(context.taskId ?? ''),
  body: (id, context) => (context.done || context.failed || context.taskId === undefined ? undefined : tasksGetBody(id, context.taskId)),
  check(status, body, context) {
    const result = resultOf(status, body, requireId(context));
    if (typeof result === 'string') return result;
    if (result.taskId !== context.taskId) return 'tasks/get answered for another task';
    if (result.status === 'working') return last ? `still working after ${MAX_POLLS} polls` : undefined;
    if (result.status !== 'completed') return `task ${String(result.status)}`;
    const toolResult = result.result as Record<string, unknown> | undefined;
    if (toolResult === undefined) return 'completed task without its result';
    const error = expectText({ resultType: 'complete', ...toolResult }, { text: taskDoneText(TASK_JOB) });
    if (error === undefined) context.done = true;
    return error;
  },
});

export const taskFlow: HttpFlow = {
  unit: 'task',
  steps: [taskCall, ...Array.from({ length: MAX_POLLS - 1 }, () => taskPoll(false)), taskPoll(true)],
};
