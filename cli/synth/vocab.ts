/**
 * Word lists for readable synthetic text. Descriptions are assembled from these so that
 * free-text search meets realistic term frequencies: a few words ("vulnerability", "allows",
 * "attackers", "via") sit in a very large share of records, class words ("SQL injection",
 * "use-after-free") in a few percent each, product names follow the product long tail.
 */

export type ImpactKind = 'rce' | 'eop' | 'info' | 'dos' | 'bypass' | 'spoof' | 'tamper';

export interface VulnClass {
  /** The phrase used in text, e.g. "SQL injection". */
  phrase: string;
  cwe: number;
  /** Relative frequency among CVEs. */
  weight: number;
  impact: ImpactKind;
  /** What the attacker achieves, after "allows … to". */
  achieves: string;
  /** Web-application classes go with web products, memory classes with native code. */
  domain: 'web' | 'native' | 'any';
}

export const VULN_CLASSES: readonly VulnClass[] = [
  { phrase: 'cross-site scripting (XSS)', cwe: 79, weight: 16, impact: 'tamper', achieves: 'inject arbitrary web script or HTML', domain: 'web' },
  { phrase: 'SQL injection', cwe: 89, weight: 8, impact: 'rce', achieves: 'execute arbitrary SQL commands', domain: 'web' },
  { phrase: 'out-of-bounds write', cwe: 787, weight: 6, impact: 'rce', achieves: 'execute arbitrary code', domain: 'native' },
  { phrase: 'out-of-bounds read', cwe: 125, weight: 5, impact: 'info', achieves: 'obtain sensitive information from process memory', domain: 'native' },
  { phrase: 'use-after-free', cwe: 416, weight: 4, impact: 'rce', achieves: 'execute arbitrary code', domain: 'native' },
  { phrase: 'improper input validation', cwe: 20, weight: 5, impact: 'dos', achieves: 'cause a denial of service', domain: 'any' },
  { phrase: 'OS command injection', cwe: 78, weight: 3, impact: 'rce', achieves: 'execute arbitrary OS commands', domain: 'any' },
  { phrase: 'path traversal', cwe: 22, weight: 4, impact: 'info', achieves: 'read arbitrary files', domain: 'any' },
  { phrase: 'cross-site request forgery (CSRF)', cwe: 352, weight: 4, impact: 'tamper', achieves: 'perform administrative actions on behalf of a victim', domain: 'web' },
  { phrase: 'missing authorization', cwe: 862, weight: 4, impact: 'bypass', achieves: 'perform unauthorized actions', domain: 'web' },
  { phrase: 'incorrect authorization', cwe: 863, weight: 1.5, impact: 'bypass', achieves: 'access restricted resources', domain: 'any' },
  { phrase: 'improper authentication', cwe: 287, weight: 2, impact: 'bypass', achieves: 'bypass authentication', domain: 'any' },
  { phrase: 'authentication bypass', cwe: 288, weight: 1, impact: 'bypass', achieves: 'gain administrative access', domain: 'any' },
  { phrase: 'missing authentication for a critical function', cwe: 306, weight: 0.8, impact: 'bypass', achieves: 'reconfigure the device', domain: 'any' },
  { phrase: 'NULL pointer dereference', cwe: 476, weight: 2.5, impact: 'dos', achieves: 'cause a denial of service (crash)', domain: 'native' },
  { phrase: 'unrestricted file upload', cwe: 434, weight: 2, impact: 'rce', achieves: 'upload and execute arbitrary files', domain: 'web' },
  { phrase: 'server-side request forgery (SSRF)', cwe: 918, weight: 1.5, impact: 'info', achieves: 'send requests to internal services', domain: 'web' },
  { phrase: 'deserialization of untrusted data', cwe: 502, weight: 1.5, impact: 'rce', achieves: 'execute arbitrary code', domain: 'any' },
  { phrase: 'integer overflow', cwe: 190, weight: 1.5, impact: 'rce', achieves: 'execute arbitrary code or cause a denial of service', domain: 'native' },
  { phrase: 'buffer overflow', cwe: 120, weight: 3, impact: 'rce', achieves: 'execute arbitrary code', domain: 'native' },
  { phrase: 'memory corruption', cwe: 119, weight: 3, impact: 'rce', achieves: 'execute arbitrary code or cause a denial of service', domain: 'native' },
  { phrase: 'stack-based buffer overflow', cwe: 121, weight: 1.5, impact: 'rce', achieves: 'execute arbitrary code', domain: 'native' },
  { phrase: 'heap-based buffer overflow', cwe: 122, weight: 1.5, impact: 'rce', achieves: 'execute arbitrary code', domain: 'native' },
  { phrase: 'information disclosure', cwe: 200, weight: 4, impact: 'info', achieves: 'obtain sensitive information', domain: 'any' },
  { phrase: 'improper access control', cwe: 284, weight: 2, impact: 'bypass', achieves: 'access restricted functionality', domain: 'any' },
  { phrase: 'improper privilege management', cwe: 269, weight: 1, impact: 'eop', achieves: 'gain elevated privileges', domain: 'any' },
  { phrase: 'uncontrolled resource consumption', cwe: 400, weight: 2, impact: 'dos', achieves: 'cause a denial of service', domain: 'any' },
  { phrase: 'resource allocation without limits', cwe: 770, weight: 0.8, impact: 'dos', achieves: 'exhaust memory and cause a denial of service', domain: 'any' },
  { phrase: 'race condition', cwe: 362, weight: 1, impact: 'eop', achieves: 'gain privileges', domain: 'native' },
  { phrase: 'hard-coded credentials', cwe: 798, weight: 1, impact: 'bypass', achieves: 'log in with a built-in account', domain: 'any' },
  { phrase: 'XML external entity (XXE) injection', cwe: 611, weight: 0.8, impact: 'info', achieves: 'read arbitrary files', domain: 'any' },
  { phrase: 'open redirect', cwe: 601, weight: 1, impact: 'spoof', achieves: 'redirect users to arbitrary web sites', domain: 'web' },
  { phrase: 'code injection', cwe: 94, weight: 1.5, impact: 'rce', achieves: 'execute arbitrary code', domain: 'any' },
  { phrase: 'command injection', cwe: 77, weight: 1, impact: 'rce', achieves: 'execute arbitrary commands', domain: 'any' },
  { phrase: 'improper certificate validation', cwe: 295, weight: 0.6, impact: 'spoof', achieves: 'intercept encrypted traffic', domain: 'any' },
  { phrase: 'infinite loop', cwe: 835, weight: 0.6, impact: 'dos', achieves: 'cause a denial of service (CPU consumption)', domain: 'any' },
  { phrase: 'double free', cwe: 415, weight: 0.5, impact: 'rce', achieves: 'execute arbitrary code', domain: 'native' },
  { phrase: 'prototype pollution', cwe: 1321, weight: 0.5, impact: 'tamper', achieves: 'modify object prototypes and alter application behavior', domain: 'web' },
  { phrase: 'insecure direct object reference', cwe: 639, weight: 0.5, impact: 'info', achieves: 'access other users\u2019 data', domain: 'web' },
  { phrase: 'cleartext storage of sensitive information', cwe: 312, weight: 0.4, impact: 'info', achieves: 'obtain stored credentials', domain: 'any' },
  { phrase: 'cleartext transmission of sensitive information', cwe: 319, weight: 0.3, impact: 'info', achieves: 'sniff credentials', domain: 'any' },
  { phrase: 'use of a broken cryptographic algorithm', cwe: 327, weight: 0.3, impact: 'info', achieves: 'decrypt protected data', domain: 'any' },
  { phrase: 'insufficient entropy', cwe: 331, weight: 0.2, impact: 'info', achieves: 'predict generated tokens', domain: 'any' },
  { phrase: 'expression language injection', cwe: 917, weight: 0.2, impact: 'rce', achieves: 'execute arbitrary code', domain: 'web' },
  { phrase: 'server-side template injection', cwe: 1336, weight: 0.2, impact: 'rce', achieves: 'execute arbitrary code', domain: 'web' },
  { phrase: 'type confusion', cwe: 843, weight: 0.5, impact: 'rce', achieves: 'execute arbitrary code', domain: 'native' },
  { phrase: 'memory leak', cwe: 401, weight: 0.5, impact: 'dos', achieves: 'exhaust memory', domain: 'native' },
  { phrase: 'incorrect default permissions', cwe: 276, weight: 0.5, impact: 'eop', achieves: 'gain privileges', domain: 'any' },
  { phrase: 'incorrect permission assignment', cwe: 732, weight: 0.4, impact: 'eop', achieves: 'modify protected files', domain: 'any' },
  { phrase: 'uncontrolled search path element', cwe: 427, weight: 0.4, impact: 'eop', achieves: 'execute arbitrary code via a planted DLL', domain: 'native' },
  { phrase: 'link following', cwe: 59, weight: 0.5, impact: 'eop', achieves: 'overwrite arbitrary files', domain: 'native' },
  { phrase: 'use of uninitialized memory', cwe: 908, weight: 0.3, impact: 'info', achieves: 'obtain sensitive information', domain: 'native' },
  { phrase: 'HTTP request smuggling', cwe: 444, weight: 0.2, impact: 'bypass', achieves: 'bypass front-end security controls', domain: 'web' },
  { phrase: 'CRLF injection', cwe: 93, weight: 0.1, impact: 'tamper', achieves: 'inject arbitrary HTTP headers', domain: 'web' },
  { phrase: 'divide by zero', cwe: 369, weight: 0.2, impact: 'dos', achieves: 'cause a denial of service (crash)', domain: 'native' },
  { phrase: 'improper locking', cwe: 667, weight: 0.3, impact: 'dos', achieves: 'cause a deadlock', domain: 'native' },
  { phrase: 'reachable assertion', cwe: 617, weight: 0.3, impact: 'dos', achieves: 'cause a denial of service (assertion failure)', domain: 'native' },
  { phrase: 'argument injection', cwe: 88, weight: 0.2, impact: 'rce', achieves: 'execute arbitrary commands', domain: 'any' },
  { phrase: 'sensitive information in log files', cwe: 532, weight: 0.3, impact: 'info', achieves: 'read credentials from log files', domain: 'any' },
  { phrase: 'insufficiently protected credentials', cwe: 522, weight: 0.3, impact: 'info', achieves: 'obtain credentials', domain: 'any' },
  { phrase: 'LDAP injection', cwe: 90, weight: 0.1, impact: 'bypass', achieves: 'bypass authentication', domain: 'web' },
  { phrase: 'CSV formula injection', cwe: 1236, weight: 0.1, impact: 'rce', achieves: 'execute commands on a victim\u2019s workstation', domain: 'web' },
  { phrase: 'improper handling of exceptional conditions', cwe: 755, weight: 0.2, impact: 'dos', achieves: 'cause a denial of service', domain: 'any' },
];

/** Microsoft-style titles ("Windows Kernel Elevation of Privilege Vulnerability"). */
export const IMPACT_TITLES: Record<ImpactKind, string> = {
  rce: 'Remote Code Execution',
  eop: 'Elevation of Privilege',
  info: 'Information Disclosure',
  dos: 'Denial of Service',
  bypass: 'Security Feature Bypass',
  spoof: 'Spoofing',
  tamper: 'Tampering',
};

export const REMOTE_ACTORS = [
  'remote attackers',
  'a remote attacker',
  'an unauthenticated remote attacker',
  'remote authenticated users',
  'an authenticated attacker',
  'attackers',
] as const;

export const LOCAL_ACTORS = ['local users', 'a local attacker', 'a low-privileged local user'] as const;

export const VECTORS = [
  'a crafted request',
  'a crafted HTTP request',
  'a specially crafted file',
  'crafted network packets',
  'a malicious URL',
  'a crafted payload',
  'a crafted document',
  'crafted input',
] as const;

export const PARAMETERS = [
  'id', 'page', 'username', 'file', 'redirect', 'search', 'q', 'name', 'url', 'path', 'lang',
  'category', 'sort', 'order', 'token', 'email', 'title', 'comment', 'template', 'action',
] as const;

export const FILE_STEMS = [
  'index', 'admin', 'login', 'upload', 'edit', 'view', 'config', 'ajax', 'profile', 'search',
  'export', 'import', 'settings', 'user', 'report', 'download', 'api', 'install', 'backup',
] as const;

export const FUNCTION_PARTS = [
  ['parse', 'handle', 'read', 'decode', 'process', 'copy', 'load', 'validate', 'update', 'init'],
  ['header', 'packet', 'request', 'buffer', 'entry', 'frame', 'record', 'chunk', 'table', 'attr'],
] as const;

export const KERNEL_SUBSYSTEMS = [
  'net', 'bpf', 'netfilter', 'ext4', 'btrfs', 'drm/amdgpu', 'drm/i915', 'usb', 'wifi: mac80211',
  'scsi', 'nvme', 'io_uring', 'mm', 'sched', 'tcp', 'bluetooth', 'ALSA', 'f2fs', 'smb: client',
] as const;

export const PLUGIN_PURPOSES = [
  'a content management system', 'an e-commerce platform', 'a workflow automation tool',
  'a self-hosted analytics platform', 'a web framework', 'a library for parsing documents',
  'an open-source project management tool', 'a static site generator', 'a chat server',
] as const;

/** Spanish fragments for NVD's machine translations (`lang: es`). */
export const SPANISH_CLASS = 'Se ha detectado una vulnerabilidad en';
export const SPANISH_TAIL = 'que permite a atacantes remotos comprometer el sistema afectado.';

export const SYLLABLES = [
  'zen', 'tri', 'qua', 'nov', 'lex', 'mor', 'vis', 'tel', 'cor', 'dyn', 'pix', 'sol', 'arc',
  'bel', 'cam', 'dex', 'fin', 'gal', 'hex', 'ion', 'jet', 'kin', 'lum', 'mag', 'nex', 'orb',
  'pra', 'rex', 'syn', 'tor', 'ult', 'ver', 'wav', 'xen', 'yor', 'zor', 'ami', 'bra', 'cel',
  'dor', 'eko', 'fal', 'gri', 'har', 'iso', 'jol', 'kor', 'lin', 'mio', 'nar', 'opt', 'pol',
] as const;

export const PRODUCT_NOUNS = [
  'Portal', 'CMS', 'Manager', 'Gateway', 'Server', 'Suite', 'Connect', 'Desk', 'Cloud', 'Hub',
  'Store', 'Booking System', 'Monitor', 'Backup', 'Mail', 'Forms', 'Analytics', 'Shop', 'Wiki',
  'Helpdesk', 'CRM', 'ERP', 'Player', 'Editor', 'Viewer', 'Agent', 'Console', 'Router',
] as const;

export const PLUGIN_NOUNS = [
  'Contact Form', 'Gallery', 'Slider', 'SEO', 'Booking', 'Popup', 'Forms', 'Membership',
  'Newsletter', 'Events Calendar', 'Social Share', 'Page Builder', 'WooCommerce Addons',
  'Backup', 'Table', 'Maps', 'Testimonials', 'Donations', 'LMS', 'Cookie Consent',
] as const;

export const DEVICE_NOUNS = ['Router', 'IP Camera', 'NAS', 'Access Point', 'DVR', 'Switch', 'Printer', 'Smart Plug'] as const;

export const ICS_NOUNS = ['PLC', 'HMI', 'SCADA Server', 'RTU', 'Engineering Workstation', 'Gateway', 'Historian'] as const;
