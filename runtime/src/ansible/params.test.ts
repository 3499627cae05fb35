// operator-sdk's variable names, on the cases its users' roles rely on.
import { describe, expect, it } from 'vitest';
import { extraVars, toSnake } from './params.js';
import type { AnsibleWatch } from './watches.js';

describe('the variables a role sees', () => {
  it('snake_cases spec keys as operator-sdk does (its paramconv cases, initialisms and leading capitals included)', () => {
    const cases: Record<string, string> = {
      replicaCount: 'replica_count', var: 'var', 888: '888', k8s_var: 'k8s_var', _k8s_var: '_k8s_var', 'k8s var': 'k8s_var',
      ThisShouldHaveUnderscores: '_this_should_have_underscores', sizeK8sBuckets: 'size_k8s_buckets',
      _CanYou_Handle_mixedVars: '_can_you_handle_mixed_vars', this_should_be_a_noop: 'this_should_be_a_noop',
      egressIPs: 'egress_ips', egressIPsEgress: 'egress_ips_egress', egressIPsegress: 'egress_ips_egress', IPsegress: '_ips_egress',
      egressIP: 'egress_ip', egressIPEgress: 'egress_ip_egress', egressIPegress: 'egress_ip_egress',
      URLegressIPEgressHTTP: 'url_egress_ip_egress_http', URLsegressIPsEgressHTTPs: '_urls_egress_ips_egress_https',
      THIS_IS_SKIP_NOT_SK_IP: '_this_is_skip_not_sk_ip', HTTPPort: 'http_port', podIPs: 'pod_ips',
    };
    expect(Object.fromEntries(Object.keys(cases).map((k) => [k, toSnake(k)]))).toEqual(cases);
  });

  it('ansible_operator_meta, the object as _<group>_<kind> and the raw spec, then vars and the finalizer\'s vars', () => {
    const watch: AnsibleWatch = {
      group: 'cache.my-corp.com', version: 'v1', kind: 'Memcached', playbook: '/p.yml', vars: { a: 1 }, maxRunnerArtifacts: 20, reconcilePeriodMs: 0,
      manageStatus: true, watchDependentResources: true, watchClusterScopedResources: false, snakeCaseParameters: true, watchAnnotationsChanges: false,
      markUnsafe: false, blacklist: [], finalizer: { name: 'f', vars: { state: 'absent' } }, selector: {},
    };
    const obj = { apiVersion: 'cache.my-corp.com/v1', kind: 'Memcached', metadata: { name: 'm', namespace: 'ns' }, spec: { replicaCount: 2, nested: { podSpec: { hostNetwork: true } } } };
    expect(extraVars(watch, obj, false)).toEqual({
      replica_count: 2, nested: { pod_spec: { host_network: true } },
      ansible_operator_meta: { name: 'm', namespace: 'ns' },
      _cache_my_corp_com_memcached: obj,
      _cache_my_corp_com_memcached_spec: obj.spec,
      a: 1,
    });
    expect(extraVars(watch, obj, true).state).toBe('absent');
    expect(extraVars({ ...watch, snakeCaseParameters: false }, obj, false).replicaCount).toBe(2);
  });
});
