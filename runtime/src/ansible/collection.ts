// operator_sdk.util, the collection roles written for operator-sdk call for what kubernetes.core lacks:
// k8s_status (a role that owns its status, manageStatus: false) and requeue_after. opgen's own modules
// with the same names and parameters, written once per runner folder and put last on
// ANSIBLE_COLLECTIONS_PATH, so an installed operator_sdk.util still wins.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const k8sStatus = `#!/usr/bin/python
# k8s_status: sets the status of a Kubernetes object (its status subresource), merging the given
# status into the current one and conditions by type; lastTransitionTime moves when a condition's
# status does. Parameters as operator_sdk.util.k8s_status's.
import datetime
import os

from ansible.module_utils.basic import AnsibleModule


def merge(old, new, replace_lists):
    out = dict(old)
    for key, value in new.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value, replace_lists)
        elif isinstance(value, list) and isinstance(out.get(key), list) and not replace_lists:
            out[key] = out[key] + [v for v in value if v not in out[key]]
        else:
            out[key] = value
    return out


def main():
    module = AnsibleModule(
        argument_spec=dict(
            api_version=dict(type='str', required=True, aliases=['apiVersion']),
            kind=dict(type='str', required=True),
            name=dict(type='str', required=True),
            namespace=dict(type='str'),
            status=dict(type='dict', default={}),
            conditions=dict(type='list', elements='dict', default=[]),
            replace_lists=dict(type='bool', default=False),
            force=dict(type='bool', default=False),
            kubeconfig=dict(type='path'),
        ),
        supports_check_mode=True,
    )
    p = module.params
    try:
        from kubernetes import config
        from kubernetes.dynamic import DynamicClient
    except ImportError:
        module.fail_json(msg='k8s_status needs the Kubernetes Python client (python3-kubernetes, or pip install kubernetes)')
    client = DynamicClient(config.new_client_from_config(config_file=p['kubeconfig'] or os.environ.get('K8S_AUTH_KUBECONFIG')))
    resource = client.resources.get(api_version=p['api_version'], kind=p['kind'])
    obj = resource.get(name=p['name'], namespace=p['namespace']).to_dict()
    old = obj.get('status') or {}
    status = merge({} if p['force'] else old, p['status'], p['replace_lists'])
    now = datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')
    conditions = list(status.get('conditions') or [])
    for c in p['conditions']:
        current = next((x for x in conditions if x.get('type') == c.get('type')), None)
        c = dict(c)
        if 'lastTransitionTime' not in c:
            c['lastTransitionTime'] = current['lastTransitionTime'] if current and current.get('status') == c.get('status') and current.get('lastTransitionTime') else now
        conditions = [x for x in conditions if x.get('type') != c.get('type')] + [c]
    if p['conditions']:
        status['conditions'] = conditions
    if status == old:
        module.exit_json(changed=False, result=obj)
    obj['status'] = status
    if module.check_mode:
        module.exit_json(changed=True, result=obj)
    result = client.replace(resource.subresources['status'], body=obj, name=p['name'], namespace=p['namespace'])
    module.exit_json(changed=True, result=result.to_dict())


if __name__ == '__main__':
    main()
`;

const requeueAfter = `#!/usr/bin/python
# requeue_after: asks the operator to run the role again after time (a Go duration, e.g. 30s);
# operator_sdk.util.requeue_after's parameter and result.
from ansible.module_utils.basic import AnsibleModule


def main():
    module = AnsibleModule(argument_spec=dict(time=dict(type='str', required=True)), supports_check_mode=True)
    module.exit_json(changed=False, period=module.params['time'])


if __name__ == '__main__':
    main()
`;

/** Writes the collection under `dir` (once) and returns the folder to append to ANSIBLE_COLLECTIONS_PATH. */
export function operatorSdkUtilCollection(dir: string): string {
  const root = join(dir, 'collections');
  const modules = join(root, 'ansible_collections', 'operator_sdk', 'util', 'plugins', 'modules');
  if (!existsSync(join(modules, 'requeue_after.py'))) {
    mkdirSync(modules, { recursive: true });
    writeFileSync(join(root, 'ansible_collections', 'operator_sdk', 'util', 'galaxy.yml'), 'namespace: operator_sdk\nname: util\nversion: 0.0.0\nreadme: README.md\nauthors: [opgen]\n');
    writeFileSync(join(modules, 'k8s_status.py'), k8sStatus);
    writeFileSync(join(modules, 'requeue_after.py'), requeueAfter);
  }
  return root;
}
