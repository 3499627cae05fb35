// Kubernetes name rules (apimachinery's validation) plus opgen's stricter kind and version rules. Each
// validator returns undefined when the value is valid, otherwise a short reason to put after the value.

const LABEL_1123 = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123LabelRe = new RegExp(`^${LABEL_1123}$`);
const dns1123SubdomainRe = new RegExp(`^${LABEL_1123}(\\.${LABEL_1123})*$`);
const dns1035LabelRe = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const apiVersionRe = /^v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$/;
const kindRe = /^[A-Z][A-Za-z0-9]*$/;

/** A DNS-1123 label: at most 63 lower-case alphanumerics or '-', starting and ending alphanumeric. */
export function checkDns1123Label(value: string): string | undefined {
  if (value.length > 63) return 'must be no more than 63 characters';
  if (!dns1123LabelRe.test(value)) {
    return "must be a DNS-1123 label: lower-case letters, digits and '-', starting and ending with a letter or digit (e.g. 'my-name')";
  }
  return undefined;
}

/** A DNS-1123 subdomain: dot-separated DNS-1123 labels, at most 253 characters. */
export function checkDns1123Subdomain(value: string): string | undefined {
  if (value.length > 253) return 'must be no more than 253 characters';
  if (!dns1123SubdomainRe.test(value)) {
    return "must be a DNS-1123 subdomain: lower-case letters, digits, '-' and '.', each part starting and ending with a letter or digit (e.g. 'example.com')";
  }
  return undefined;
}

/** A DNS-1035 label: like a DNS-1123 label but starting with a letter. */
export function checkDns1035Label(value: string): string | undefined {
  if (value.length > 63) return 'must be no more than 63 characters';
  if (!dns1035LabelRe.test(value)) {
    return "must be a DNS-1035 label: lower-case letters, digits and '-', starting with a letter and ending with a letter or digit (e.g. 'my-name')";
  }
  return undefined;
}

/** A Kubernetes API version: `v1`, `v2beta3`, `v1alpha1` (no leading zeros, no `v0`). */
export function checkApiVersion(value: string): string | undefined {
  if (!apiVersionRe.test(value)) return "must be a Kubernetes API version such as 'v1', 'v1alpha1' or 'v2beta3'";
  return undefined;
}

/** A kind: PascalCase ASCII whose lower-case form is a DNS-1035 label (it names the CRD's singular). */
export function checkKind(value: string): string | undefined {
  if (!kindRe.test(value)) {
    return "must be PascalCase: an upper-case letter followed by letters and digits (e.g. 'Memcached')";
  }
  const asLabel = checkDns1035Label(value.toLowerCase());
  if (asLabel) return `lower-cased, ${asLabel}`;
  return undefined;
}
