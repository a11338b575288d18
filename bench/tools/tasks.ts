/** Tessera's task tool for the tasks phase: `task: 'optional'`, its work done at once; the load generator checks its text. */
export const TASK_TOOL = 'instant';
export const TASK_JOB = 'job-1';
export const taskDoneText = (job: string): string => `Finished ${job}.`;
