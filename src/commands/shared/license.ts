// The license header of new source files (hack/boilerplate.ts.txt): kubebuilder's apache2 / none, or a
// header of the user's own (--license-file), which must be one /* ... */ block so it can head a
// TypeScript file as it is.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { OpgenError } from '../../diag/diagnostic.js';
import { renderPartial } from '../../scaffold/index.js';

export type License = 'apache2' | 'none';

/** Reads a --license-file header; one-line errors name the flag and the fix. */
export function readLicenseFile(cwd: string, file: string): string {
  let text: string;
  try {
    text = readFileSync(resolve(cwd, file), 'utf8');
  } catch (err) {
    throw new OpgenError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { flag: '--license-file' }, 'give the path of a file holding your license header');
  }
  const trimmed = text.trim();
  if (!/^\/\*[\s\S]*\*\/$/.test(trimmed) || trimmed.indexOf('*/') !== trimmed.length - 2) {
    throw new OpgenError(`${file} is not a single /* ... */ comment block`, { flag: '--license-file' }, 'wrap the header in /* and */, as it will head every new source file');
  }
  return `${trimmed}\n`;
}

/** hack/boilerplate.ts.txt for a license and owner. */
export function boilerplateFor(license: License, owner: string): string {
  return renderPartial('boilerplate', { licenseApache: license === 'apache2', copyrightOwner: owner });
}

/** The owner named in an existing apache2 header ("Copyright <owner>."), if any. */
export function ownerIn(boilerplate: string | undefined): string | undefined {
  return /^Copyright (.+)\.$/m.exec(boilerplate ?? '')?.[1];
}
