// What each doctor check reports: one row per subject, with the fix for every problem.

export type Status = 'ok' | 'warning' | 'error';

export type CheckName = 'version' | 'crd' | 'storage' | 'rbac' | 'webhook';

export interface Finding {
  check: CheckName;
  /** What was checked: `server v1.36.3`, a CRD name, `watch memcacheds.cache.example.com`, a webhook name. */
  subject: string;
  status: Status;
  message: string;
  /** Present on every warning and error. */
  fix?: string;
}

const CHECK_ORDER: readonly CheckName[] = ['version', 'crd', 'storage', 'rbac', 'webhook'];

/** Checks in a fixed order, then subjects sorted, so two runs on the same cluster print the same. */
export function sortFindings(findings: Finding[]): Finding[] {
  return [...findings].sort((a, b) => CHECK_ORDER.indexOf(a.check) - CHECK_ORDER.indexOf(b.check) || (a.subject < b.subject ? -1 : a.subject > b.subject ? 1 : 0));
}

export function worst(findings: readonly Finding[]): Status {
  if (findings.some((f) => f.status === 'error')) return 'error';
  if (findings.some((f) => f.status === 'warning')) return 'warning';
  return 'ok';
}

/** A plain-text table (CHECK, SUBJECT, STATUS, MESSAGE) with each fix on the line below its problem. */
export function formatTable(findings: readonly Finding[]): string[] {
  const headers = ['CHECK', 'SUBJECT', 'STATUS', 'MESSAGE'];
  const rows = findings.map((f) => [f.check, f.subject, f.status, f.message]);
  const widths = [0, 1, 2].map((i) => Math.max(headers[i]!.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]): string => cells.map((c, i) => (i < 3 ? c.padEnd(widths[i]!) : c)).join('  ').trimEnd();
  const indent = ' '.repeat(widths[0]! + widths[1]! + widths[2]! + 6);
  const out = [line(headers)];
  for (const f of findings) {
    out.push(line([f.check, f.subject, f.status, f.message]));
    if (f.fix && f.status !== 'ok') out.push(`${indent}fix: ${f.fix}`);
  }
  return out;
}
