import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadTemplates, renderPartial, renderTemplates, templatesRoot, Tree } from './index.js';

let root: string;
beforeEach(() => (root = mkdtempSync(join(tmpdir(), 'opgen-tpl-'))));
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** Every template set: a folder of templates/ holding .hbs files directly or below (not the partials). */
function templateSets(): string[] {
  return ['init', 'grafana', 'api/resource', 'api/controller', 'olm/manifests', 'olm/bundle', 'olm/catalog', 'webhook/common', 'webhook/cert-manager', 'webhook/self', 'webhook/self-injector', 'webhook/defaulting', 'webhook/validation', 'webhook/conversion', 'webhook/spoke', ...helmSets.map((s) => `helm/${s}`)];
}

const helmSets = ['binding', 'chart', 'crd', 'extra', 'role', 'webhook', 'webhook-configuration'];

describe('templates/', () => {
  it('has no template outside the known sets, so every template is exercised by the command tests', () => {
    const top = readdirSync(templatesRoot).sort();
    // templates/migrate: opgen migrate's own (exercised by src/migrate and test/parity/migrate-*).
    // templates/grafana: edit --plugins grafana's (exercised by test/grafana).
    // templates/helm-operator: create api --helm-chart's (exercised by test/helm-operator).
    // templates/ansible-operator: create api --ansible-role/--ansible-playbook's (exercised by test/ansible-operator).
    expect(top).toEqual(['_partials', 'ansible-operator', 'api', 'grafana', 'helm', 'helm-operator', 'init', 'migrate', 'olm', 'webhook']);
    expect(readdirSync(join(templatesRoot, 'ansible-operator')).sort()).toEqual(['fragments', 'project', 'role']);
    expect(readdirSync(join(templatesRoot, 'helm')).sort()).toEqual(helmSets);
    expect(readdirSync(join(templatesRoot, 'api')).sort()).toEqual(['controller', 'resource']);
    expect(readdirSync(join(templatesRoot, 'webhook')).sort()).toEqual(['cert-manager', 'common', 'conversion', 'defaulting', 'self', 'self-injector', 'spoke', 'validation']);
  });

  it.each(templateSets())('every template in %s declares its overwrite policy', (set) => {
    // loadTemplates() throws for a template without its `{{!-- opgen: ifExists=… --}}` header line.
    expect(() => loadTemplates(set)).not.toThrow();
    expect(loadTemplates(set).length).toBeGreaterThan(0);
  });

  it('user-owned files are never overwritten without --force', () => {
    const policy = (set: string, source: string): string | undefined => loadTemplates(set).find((t) => t.source === source)?.ifExists;
    expect(policy('init', 'src/main.ts.hbs')).toBe('error');
    expect(policy('init', 'package.json.hbs')).toBe('error');
    expect(policy('api/resource', '__apiDir__/__kindFile__-types.ts.hbs')).toBe('error');
    expect(policy('api/controller', '__controllerDir__/__kindFile__-controller.ts.hbs')).toBe('error');
    expect(policy('api/resource', 'config/rbac/__rolePrefix___admin_role.yaml.hbs')).toBe('overwrite');
    expect(policy('webhook/defaulting', '__webhookDir__/__kindFile__-defaulter.ts.hbs')).toBe('error');
    expect(policy('webhook/validation', '__webhookDir__/__kindFile__-validator.ts.hbs')).toBe('error');
    expect(policy('webhook/spoke', '__spokeDir__/__kindFile__-conversion.ts.hbs')).toBe('error');
    expect(policy('webhook/cert-manager', 'config/certmanager/certificate-webhook.yaml.hbs')).toBe('skip');
  });

  it('fills path placeholders, turns __dot__ into a dot, and --force overrides ifExists=error', () => {
    const tree = new Tree(root);
    const data = { boilerplate: '', projectName: 'p', domain: 'd.io', repo: '', opgenVersion: '0.0.0', leaderElectionID: 'x.d.io', header: '' };
    const written = renderTemplates(tree, 'init', { data });
    expect(written).toContain('.gitignore');
    expect(written).toContain('.dockerignore');
    tree.write('src/main.ts', 'mine');
    expect(() => renderTemplates(tree, 'init', { data: { ...data, projectName: 'q' } })).toThrow(/already exists/);
    renderTemplates(tree, 'init', { data: { ...data, projectName: 'q' }, force: true });
    expect(tree.read('src/main.ts')).toContain('createManager');
  });

  it('fails loudly when a template uses a value the command did not provide (strict mode)', () => {
    const tree = new Tree(root);
    expect(() => renderTemplates(tree, 'init', { data: { projectName: 'p' } })).toThrow(/not defined/);
    expect(() => renderTemplates(tree, 'api/resource', { data: {}, placeholders: {} })).toThrow(/uses __apiDir__, which has no value/);
  });

  it('renders the license header only for apache2', () => {
    expect(renderPartial('boilerplate', { licenseApache: true, copyrightOwner: 'Example Inc' })).toContain('Copyright Example Inc.\n\nLicensed under the Apache License, Version 2.0');
    expect(renderPartial('boilerplate', { licenseApache: false, copyrightOwner: 'x' }).trim()).toBe('');
  });
});
