/** Asks a server's diagnostics endpoint (servers/diagnostics.ts) for its memory. */

import type { MemoryReport } from '../servers/diagnostics.js';

export async function readMemory(diagnosticsUrl: string, options: { gc?: boolean } = {}): Promise<MemoryReport> {
  const response = await fetch(options.gc ? `${diagnosticsUrl}?gc=1` : diagnosticsUrl);
  if (!response.ok) throw new Error(`diagnostics answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as MemoryReport;
}
