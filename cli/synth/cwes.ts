/**
 * The CWE entries the synthetic corpus uses, with their real MITRE names and abstractions, so
 * the generated `cwec_v4.19.xml` covers every CWE id that appears in any other source.
 */

export interface CweEntry {
  id: number;
  name: string;
  kind: 'weakness' | 'category' | 'view';
  /** Weaknesses only: Pillar | Class | Base | Variant | Compound. */
  abstraction?: string;
  status: string;
}

const W = (id: number, name: string, abstraction: string, status = 'Stable'): CweEntry => ({ id, name, kind: 'weakness', abstraction, status });

export const CWE_ENTRIES: readonly CweEntry[] = [
  W(20, 'Improper Input Validation', 'Class'),
  W(22, "Improper Limitation of a Pathname to a Restricted Directory ('Path Traversal')", 'Base'),
  W(59, "Improper Link Resolution Before File Access ('Link Following')", 'Base', 'Draft'),
  W(74, "Improper Neutralization of Special Elements in Output Used by a Downstream Component ('Injection')", 'Class', 'Incomplete'),
  W(77, "Improper Neutralization of Special Elements used in a Command ('Command Injection')", 'Class', 'Draft'),
  W(78, "Improper Neutralization of Special Elements used in an OS Command ('OS Command Injection')", 'Base'),
  W(79, "Improper Neutralization of Input During Web Page Generation ('Cross-site Scripting')", 'Base'),
  W(88, "Improper Neutralization of Argument Delimiters in a Command ('Argument Injection')", 'Base', 'Draft'),
  W(89, "Improper Neutralization of Special Elements used in an SQL Command ('SQL Injection')", 'Base'),
  W(90, "Improper Neutralization of Special Elements used in an LDAP Query ('LDAP Injection')", 'Base', 'Draft'),
  W(93, "Improper Neutralization of CRLF Sequences ('CRLF Injection')", 'Base', 'Draft'),
  W(94, "Improper Control of Generation of Code ('Code Injection')", 'Base', 'Draft'),
  W(119, 'Improper Restriction of Operations within the Bounds of a Memory Buffer', 'Class'),
  W(120, "Buffer Copy without Checking Size of Input ('Classic Buffer Overflow')", 'Base', 'Incomplete'),
  W(121, 'Stack-based Buffer Overflow', 'Variant', 'Draft'),
  W(122, 'Heap-based Buffer Overflow', 'Variant', 'Draft'),
  W(125, 'Out-of-bounds Read', 'Base', 'Draft'),
  W(190, 'Integer Overflow or Wraparound', 'Base'),
  W(200, 'Exposure of Sensitive Information to an Unauthorized Actor', 'Class', 'Draft'),
  W(269, 'Improper Privilege Management', 'Class', 'Draft'),
  W(276, 'Incorrect Default Permissions', 'Base', 'Draft'),
  W(284, 'Improper Access Control', 'Pillar', 'Incomplete'),
  W(287, 'Improper Authentication', 'Class', 'Draft'),
  W(288, 'Authentication Bypass Using an Alternate Path or Channel', 'Base', 'Incomplete'),
  W(295, 'Improper Certificate Validation', 'Base', 'Draft'),
  W(306, 'Missing Authentication for Critical Function', 'Base', 'Draft'),
  W(312, 'Cleartext Storage of Sensitive Information', 'Base', 'Draft'),
  W(319, 'Cleartext Transmission of Sensitive Information', 'Base', 'Draft'),
  W(327, 'Use of a Broken or Risky Cryptographic Algorithm', 'Class', 'Draft'),
  W(331, 'Insufficient Entropy', 'Base', 'Draft'),
  W(352, 'Cross-Site Request Forgery (CSRF)', 'Compound'),
  W(362, "Concurrent Execution using Shared Resource with Improper Synchronization ('Race Condition')", 'Class', 'Draft'),
  W(369, 'Divide By Zero', 'Base', 'Draft'),
  W(400, 'Uncontrolled Resource Consumption', 'Class', 'Draft'),
  W(401, 'Missing Release of Memory after Effective Lifetime', 'Variant', 'Draft'),
  W(415, 'Double Free', 'Variant', 'Draft'),
  W(416, 'Use After Free', 'Variant'),
  W(427, 'Uncontrolled Search Path Element', 'Base', 'Draft'),
  W(434, 'Unrestricted Upload of File with Dangerous Type', 'Base', 'Draft'),
  W(444, "Inconsistent Interpretation of HTTP Requests ('HTTP Request/Response Smuggling')", 'Base', 'Incomplete'),
  W(476, 'NULL Pointer Dereference', 'Base'),
  W(502, 'Deserialization of Untrusted Data', 'Base', 'Draft'),
  W(522, 'Insufficiently Protected Credentials', 'Class', 'Incomplete'),
  W(532, 'Insertion of Sensitive Information into Log File', 'Base', 'Incomplete'),
  W(601, "URL Redirection to Untrusted Site ('Open Redirect')", 'Base', 'Draft'),
  W(611, 'Improper Restriction of XML External Entity Reference', 'Base', 'Draft'),
  W(617, 'Reachable Assertion', 'Base', 'Draft'),
  W(639, 'Authorization Bypass Through User-Controlled Key', 'Base', 'Incomplete'),
  W(667, 'Improper Locking', 'Class', 'Draft'),
  W(732, 'Incorrect Permission Assignment for Critical Resource', 'Class', 'Draft'),
  W(755, 'Improper Handling of Exceptional Conditions', 'Class', 'Incomplete'),
  W(770, 'Allocation of Resources Without Limits or Throttling', 'Base', 'Incomplete'),
  W(787, 'Out-of-bounds Write', 'Base', 'Draft'),
  W(798, 'Use of Hard-coded Credentials', 'Base', 'Draft'),
  W(835, "Loop with Unreachable Exit Condition ('Infinite Loop')", 'Base', 'Incomplete'),
  W(843, "Access of Resource Using Incompatible Type ('Type Confusion')", 'Base', 'Incomplete'),
  W(862, 'Missing Authorization', 'Class', 'Incomplete'),
  W(863, 'Incorrect Authorization', 'Class', 'Incomplete'),
  W(908, 'Use of Uninitialized Resource', 'Base', 'Incomplete'),
  W(917, "Improper Neutralization of Special Elements used in an Expression Language Statement ('Expression Language Injection')", 'Base', 'Incomplete'),
  W(918, 'Server-Side Request Forgery (SSRF)', 'Base', 'Incomplete'),
  W(1187, 'DEPRECATED: Use of Uninitialized Resource', 'Base', 'Deprecated'),
  W(1236, 'Improper Neutralization of Formula Elements in a CSV File', 'Base', 'Incomplete'),
  W(1321, "Improperly Controlled Modification of Object Prototype Attributes ('Prototype Pollution')", 'Variant', 'Incomplete'),
  W(1336, 'Improper Neutralization of Special Elements Used in a Template Engine', 'Base', 'Incomplete'),
  { id: 16, name: 'Configuration', kind: 'category', status: 'Obsolete' },
  { id: 937, name: 'OWASP Top Ten 2013 Category A9 - Using Components with Known Vulnerabilities', kind: 'category', status: 'Incomplete' },
  { id: 1035, name: 'OWASP Top Ten 2017 Category A9 - Using Components with Known Vulnerabilities', kind: 'category', status: 'Incomplete' },
  { id: 1211, name: 'Authentication Errors', kind: 'category', status: 'Draft' },
  { id: 699, name: 'Software Development', kind: 'view', status: 'Draft' },
  { id: 1000, name: 'Research Concepts', kind: 'view', status: 'Draft' },
  { id: 1003, name: 'Weaknesses for Simplified Mapping of Published Vulnerabilities', kind: 'view', status: 'Draft' },
];

const BY_ID = new Map(CWE_ENTRIES.map((e) => [e.id, e]));

export function cweName(id: number): string {
  const entry = BY_ID.get(id);
  if (!entry) throw new Error(`CWE-${id} is used but missing from the synthetic CWE catalog`);
  return entry.name;
}

export function hasCwe(id: number): boolean {
  return BY_ID.has(id);
}
