// The releases built when nothing else is asked for (as the opgen repository's .ci/test-assets.sh and
// .ci/cluster-assets.sh build them).
export const DEFAULT_KUBERNETES_VERSION = '1.36.3';
export const DEFAULT_ETCD_VERSION = '3.6.16';
export const DEFAULT_KWOK_VERSION = '0.8.0';
