/**
 * The product universe: a head of real, heavily affected products (Linux kernel, Windows,
 * Chrome, …) followed by a long tail of generated ones (WordPress plugins, open-source
 * packages, web apps, IoT firmware, ICS devices). CVEs draw their product by Zipf rank, so a
 * few products carry thousands of CVEs at full scale and most carry one or two.
 */
import { DEVICE_NOUNS, ICS_NOUNS, PLUGIN_NOUNS, PRODUCT_NOUNS, SYLLABLES } from './vocab.ts';
import { Rng, rngFor, ZipfSampler } from './random.ts';

export type ProductKind = 'os' | 'app' | 'network' | 'lib' | 'web' | 'plugin' | 'device' | 'ics' | 'desktop';

export interface Product {
  /** CPE vendor and product components (lower case, `_` for spaces). */
  vendor: string;
  product: string;
  vendorName: string;
  productName: string;
  part: 'a' | 'o' | 'h';
  kind: ProductKind;
  /** Key of the CNA that assigns this product's CVEs (see cnas.ts). */
  cna: string;
  /** Shipped by Linux distributions: Red Hat and SUSE publish advisories for it. */
  distro: boolean;
  /** AI/ML software (the `/shadow-ai-radar` endpoint looks for these). */
  ai: boolean;
  /** Open-source package coordinates: the GHSA/OSV side of the product. */
  ecosystem: string | null;
  packageName: string | null;
  /** Firmware products: the hardware it runs on (NVD `AND` configurations). */
  hardware: string | null;
  /** Version numbering: `semver` 1.2.3, `kernel` 6.1.55, `build` 10.0.19045.3570. */
  versioning: 'semver' | 'kernel' | 'build';
}

type Head = [vendor: string, product: string, vendorName: string, productName: string, part: Product['part'], kind: ProductKind, cna: string, extra?: string];

/**
 * Head products in popularity order. `extra` flags: `d` distro-packaged, `ai`, `pkg=<eco>|<name>`,
 * `hw=<hardware>`, `v=<versioning>`.
 */
const HEAD: Head[] = [
  ['linux', 'linux_kernel', 'Linux', 'Linux kernel', 'o', 'os', 'linux', 'd v=kernel'],
  ['microsoft', 'windows_10', 'Microsoft', 'Windows 10', 'o', 'os', 'microsoft', 'v=build'],
  ['google', 'android', 'Google', 'Android', 'o', 'os', 'android'],
  ['google', 'chrome', 'Google', 'Chrome', 'a', 'app', 'chrome', 'v=build'],
  ['apple', 'macos', 'Apple', 'macOS', 'o', 'os', 'apple'],
  ['microsoft', 'windows_server_2022', 'Microsoft', 'Windows Server 2022', 'o', 'os', 'microsoft', 'v=build'],
  ['apple', 'iphone_os', 'Apple', 'iOS', 'o', 'os', 'apple'],
  ['debian', 'debian_linux', 'Debian', 'Debian Linux', 'o', 'os', 'debian', 'd'],
  ['oracle', 'mysql', 'Oracle', 'MySQL', 'a', 'app', 'oracle', 'd'],
  ['fasterxml', 'jackson-databind', 'FasterXML', 'jackson-databind', 'a', 'lib', 'github', 'd pkg=Maven|com.fasterxml.jackson.core:jackson-databind'],
  ['microsoft', 'windows_11', 'Microsoft', 'Windows 11', 'o', 'os', 'microsoft', 'v=build'],
  ['fedoraproject', 'fedora', 'Fedora Project', 'Fedora', 'o', 'os', 'redhat', 'd'],
  ['mozilla', 'firefox', 'Mozilla', 'Firefox', 'a', 'app', 'mozilla', 'd'],
  ['adobe', 'acrobat_reader_dc', 'Adobe', 'Acrobat Reader DC', 'a', 'desktop', 'adobe'],
  ['cisco', 'ios_xe', 'Cisco', 'IOS XE Software', 'o', 'network', 'cisco'],
  ['qualcomm', 'sd_8_gen1_firmware', 'Qualcomm', 'Snapdragon 8 Gen 1 firmware', 'o', 'device', 'qualcomm', 'hw=sd_8_gen1'],
  ['microsoft', 'office', 'Microsoft', 'Office', 'a', 'desktop', 'microsoft', 'v=build'],
  ['google', 'tensorflow', 'Google', 'TensorFlow', 'a', 'lib', 'github', 'ai pkg=PyPI|tensorflow'],
  ['php', 'php', 'PHP Group', 'PHP', 'a', 'app', 'mitre', 'd'],
  ['imagemagick', 'imagemagick', 'ImageMagick', 'ImageMagick', 'a', 'app', 'github', 'd'],
  ['wireshark', 'wireshark', 'Wireshark', 'Wireshark', 'a', 'app', 'gitlab', 'd'],
  ['canonical', 'ubuntu_linux', 'Canonical', 'Ubuntu Linux', 'o', 'os', 'canonical', 'd'],
  ['jenkins', 'jenkins', 'Jenkins', 'Jenkins', 'a', 'app', 'jenkins'],
  ['gitlab', 'gitlab', 'GitLab', 'GitLab', 'a', 'app', 'gitlab'],
  ['wordpress', 'wordpress', 'WordPress', 'WordPress', 'a', 'web', 'wordfence'],
  ['siemens', 'simatic_s7-1500_cpu_firmware', 'Siemens', 'SIMATIC S7-1500 CPU firmware', 'o', 'ics', 'siemens', 'hw=simatic_s7-1500_cpu'],
  ['cisco', 'adaptive_security_appliance_software', 'Cisco', 'Adaptive Security Appliance Software', 'a', 'network', 'cisco'],
  ['openssl', 'openssl', 'OpenSSL', 'OpenSSL', 'a', 'app', 'openssl', 'd'],
  ['apache', 'http_server', 'Apache Software Foundation', 'Apache HTTP Server', 'a', 'app', 'apache', 'd'],
  ['apache', 'tomcat', 'Apache Software Foundation', 'Apache Tomcat', 'a', 'app', 'apache', 'd pkg=Maven|org.apache.tomcat.embed:tomcat-embed-core'],
  ['ibm', 'websphere_application_server', 'IBM', 'WebSphere Application Server', 'a', 'app', 'ibm'],
  ['oracle', 'java_se', 'Oracle', 'Java SE', 'a', 'app', 'oracle'],
  ['qemu', 'qemu', 'QEMU', 'QEMU', 'a', 'app', 'redhat', 'd'],
  ['vim', 'vim', 'Vim', 'Vim', 'a', 'desktop', 'huntr', 'd'],
  ['gnu', 'glibc', 'GNU', 'glibc', 'a', 'app', 'mitre', 'd'],
  ['haxx', 'curl', 'haxx', 'curl', 'a', 'app', 'hackerone', 'd'],
  ['python', 'python', 'Python Software Foundation', 'CPython', 'a', 'app', 'python', 'd'],
  ['nodejs', 'node.js', 'Node.js', 'Node.js', 'a', 'app', 'hackerone', 'd'],
  ['fortinet', 'fortios', 'Fortinet', 'FortiOS', 'o', 'network', 'fortinet'],
  ['paloaltonetworks', 'pan-os', 'Palo Alto Networks', 'PAN-OS', 'o', 'network', 'paloalto'],
  ['vmware', 'vcenter_server', 'VMware', 'vCenter Server', 'a', 'app', 'vmware'],
  ['schneider-electric', 'ecostruxure_control_expert', 'Schneider Electric', 'EcoStruxure Control Expert', 'a', 'ics', 'schneider'],
  ['f5', 'big-ip_local_traffic_manager', 'F5', 'BIG-IP Local Traffic Manager', 'a', 'network', 'f5'],
  ['juniper', 'junos', 'Juniper Networks', 'Junos OS', 'o', 'network', 'juniper'],
  ['samba', 'samba', 'Samba', 'Samba', 'a', 'app', 'redhat', 'd'],
  ['openbsd', 'openssh', 'OpenBSD', 'OpenSSH', 'a', 'app', 'mitre', 'd'],
  ['lodash', 'lodash', 'lodash', 'lodash', 'a', 'lib', 'github', 'pkg=npm|lodash'],
  ['djangoproject', 'django', 'Django Software Foundation', 'Django', 'a', 'lib', 'mitre', 'd pkg=PyPI|django'],
  ['apache', 'log4j', 'Apache Software Foundation', 'Apache Log4j', 'a', 'lib', 'apache', 'd pkg=Maven|org.apache.logging.log4j:log4j-core'],
  ['linuxfoundation', 'pytorch', 'Linux Foundation', 'PyTorch', 'a', 'lib', 'github', 'ai pkg=PyPI|torch'],
  ['langchain', 'langchain', 'LangChain', 'LangChain', 'a', 'lib', 'github', 'ai pkg=PyPI|langchain'],
  ['ollama', 'ollama', 'Ollama', 'Ollama', 'a', 'lib', 'github', 'ai pkg=Go|github.com/ollama/ollama'],
  ['huggingface', 'transformers', 'Hugging Face', 'Transformers', 'a', 'lib', 'huntr', 'ai pkg=PyPI|transformers'],
  ['lfprojects', 'mlflow', 'LF Projects', 'MLflow', 'a', 'lib', 'huntr', 'ai pkg=PyPI|mlflow'],
  ['gradio_project', 'gradio', 'Gradio', 'Gradio', 'a', 'lib', 'github', 'ai pkg=PyPI|gradio'],
  ['vmware', 'spring_framework', 'VMware', 'Spring Framework', 'a', 'lib', 'vmware', 'd pkg=Maven|org.springframework:spring-core'],
  ['jquery', 'jquery', 'jQuery', 'jQuery', 'a', 'lib', 'github', 'pkg=npm|jquery'],
  ['rubyonrails', 'rails', 'Ruby on Rails', 'Rails', 'a', 'lib', 'github', 'pkg=RubyGems|rails'],
  ['laravel', 'framework', 'Laravel', 'Laravel Framework', 'a', 'lib', 'github', 'pkg=Packagist|laravel/framework'],
  ['sensiolabs', 'symfony', 'SensioLabs', 'Symfony', 'a', 'lib', 'github', 'pkg=Packagist|symfony/symfony'],
  ['netty', 'netty', 'Netty', 'Netty', 'a', 'lib', 'github', 'd pkg=Maven|io.netty:netty-codec-http'],
  ['rockwellautomation', 'factorytalk_view', 'Rockwell Automation', 'FactoryTalk View', 'a', 'ics', 'rockwell'],
  ['advantech', 'webaccess_scada', 'Advantech', 'WebAccess/SCADA', 'a', 'ics', 'icscert'],
  ['mitsubishielectric', 'melsec_iq-r_firmware', 'Mitsubishi Electric', 'MELSEC iQ-R firmware', 'o', 'ics', 'mitsubishi', 'hw=melsec_iq-r'],
  ['microsoft', 'edge_chromium', 'Microsoft', 'Edge (Chromium-based)', 'a', 'app', 'microsoft', 'v=build'],
  ['microsoft', 'exchange_server', 'Microsoft', 'Exchange Server', 'a', 'app', 'microsoft', 'v=build'],
  ['apple', 'safari', 'Apple', 'Safari', 'a', 'app', 'apple'],
  ['sap', 'netweaver', 'SAP', 'NetWeaver', 'a', 'app', 'sap'],
  ['atlassian', 'confluence_data_center', 'Atlassian', 'Confluence Data Center', 'a', 'app', 'atlassian'],
  ['zyxel', 'nas326_firmware', 'Zyxel', 'NAS326 firmware', 'o', 'device', 'zyxel', 'hw=nas326'],
  ['tp-link', 'archer_c7_firmware', 'TP-Link', 'Archer C7 firmware', 'o', 'device', 'vuldb', 'hw=archer_c7'],
  ['dlink', 'dir-859_firmware', 'D-Link', 'DIR-859 firmware', 'o', 'device', 'vuldb', 'hw=dir-859'],
  ['ivanti', 'connect_secure', 'Ivanti', 'Connect Secure', 'a', 'network', 'ivanti'],
  ['citrix', 'netscaler_gateway', 'Citrix', 'NetScaler Gateway', 'a', 'network', 'citrix'],
  ['golang', 'go', 'Golang', 'Go', 'a', 'app', 'golang', 'd'],
  ['kubernetes', 'kubernetes', 'Kubernetes', 'Kubernetes', 'a', 'app', 'kubernetes', 'd pkg=Go|k8s.io/kubernetes'],
  ['grafana', 'grafana', 'Grafana Labs', 'Grafana', 'a', 'app', 'grafana', 'pkg=Go|github.com/grafana/grafana'],
  ['nvidia', 'gpu_display_driver', 'NVIDIA', 'GPU Display Driver', 'a', 'desktop', 'nvidia'],
  ['axios', 'axios', 'axios', 'axios', 'a', 'lib', 'github', 'pkg=npm|axios'],
  ['expressjs', 'express', 'Express', 'Express', 'a', 'lib', 'github', 'pkg=npm|express'],
  ['python', 'requests', 'Python Software Foundation', 'Requests', 'a', 'lib', 'github', 'd pkg=PyPI|requests'],
  ['python', 'pillow', 'Python Software Foundation', 'Pillow', 'a', 'lib', 'github', 'd pkg=PyPI|pillow'],
  ['mattermost', 'mattermost_server', 'Mattermost', 'Mattermost Server', 'a', 'app', 'mattermost', 'pkg=Go|github.com/mattermost/mattermost/server/v8'],
  ['suse', 'rancher', 'SUSE', 'Rancher', 'a', 'app', 'suse', 'd pkg=Go|github.com/rancher/rancher'],
  ['redhat', 'enterprise_linux', 'Red Hat', 'Red Hat Enterprise Linux', 'o', 'os', 'redhat', 'd'],
];

function fromHead(h: Head): Product {
  const [vendor, product, vendorName, productName, part, kind, cna, extra = ''] = h;
  const flags = extra.split(' ').filter(Boolean);
  const pkg = flags.find((f) => f.startsWith('pkg='))?.slice(4).split('|');
  const hw = flags.find((f) => f.startsWith('hw='))?.slice(3) ?? null;
  const v = flags.find((f) => f.startsWith('v='))?.slice(2) as Product['versioning'] | undefined;
  return {
    vendor, product, vendorName, productName, part, kind, cna,
    distro: flags.includes('d'),
    ai: flags.includes('ai'),
    ecosystem: pkg?.[0] ?? null,
    packageName: pkg?.[1] ?? null,
    hardware: hw,
    versioning: v ?? 'semver',
  };
}

export const ECOSYSTEM_WEIGHTS: Array<[string, number]> = [
  ['npm', 30], ['Maven', 19], ['PyPI', 18], ['Go', 10], ['Packagist', 9], ['NuGet', 4],
  ['RubyGems', 4], ['crates.io', 4], ['Pub', 1], ['Hex', 1],
];

function capital(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** A made-up brand name: two or three syllables ("Zentrix", "Novalex"). */
export function brandName(rng: Rng): string {
  const n = rng.chance(0.3) ? 3 : 2;
  let word = '';
  for (let i = 0; i < n; i++) word += rng.pick(SYLLABLES);
  if (rng.chance(0.3)) word += rng.pick(['ix', 'ia', 'on', 'a', 'o', 'us']);
  return capital(word);
}

function slug(name: string, sep = '_'): string {
  return name.toLowerCase().replace(/[^a-z0-9.+-]+/g, sep).replace(/^_+|_+$/g, '');
}

const VENDOR_SUFFIXES = ['', '', '', ' Software', ' Systems', ' Labs', ' Technologies', ' Networks', ' Inc.'];

function packageFor(ecosystem: string, owner: string, base: string): string {
  switch (ecosystem) {
    case 'npm': return owner === base ? base : `@${owner}/${base}`;
    case 'Maven': return `com.${owner}:${base}-core`;
    case 'Go': return `github.com/${owner}/${base}`;
    case 'Packagist': return `${owner}/${base}`;
    case 'NuGet': return `${capital(owner)}.${capital(base)}`;
    case 'RubyGems': return base.replace(/-/g, '_');
    default: return base;
  }
}

/** Generated tail product `rank` (deterministic per seed and rank). */
function tailProduct(root: number, rank: number, vendorPool: number): Product {
  const rng = rngFor(root, 'product', rank);
  const kind = rng.weighted<ProductKind>([['plugin', 24], ['lib', 30], ['web', 14], ['device', 9], ['app', 12], ['ics', 3], ['desktop', 8]]);
  const vrng = rngFor(root, 'vendor', rng.int(0, vendorPool - 1));
  const brand = brandName(vrng);
  const vendorName = brand + (kind === 'ics' ? rng.pick([' Automation', ' Electric', ' Controls']) : vrng.pick(VENDOR_SUFFIXES));
  const vendor = slug(vendorName.replace(/ Inc\.$/, ''));
  const base: Omit<Product, 'product' | 'productName' | 'part' | 'cna'> = {
    vendor, vendorName, kind, distro: false, ai: false, ecosystem: null, packageName: null, hardware: null, versioning: 'semver',
  };
  switch (kind) {
    case 'plugin': {
      const name = `${brandName(rng)} ${rng.pick(PLUGIN_NOUNS)}`;
      return { ...base, vendor: slug(brand), vendorName: brand, product: slug(name, '-'), productName: name, part: 'a', cna: rng.chance(0.6) ? 'wordfence' : 'patchstack' };
    }
    case 'lib': {
      const ecosystem = rng.weighted(ECOSYSTEM_WEIGHTS);
      const owner = slug(brand, '-');
      const stem = rng.chance(0.3) ? owner : `${owner}-${rng.pick(['parser', 'utils', 'client', 'core', 'http', 'auth', 'yaml', 'template', 'image', 'sdk', 'cli', 'server', 'orm', 'crypto'])}`;
      const ai = rng.chance(0.06);
      const baseName = ai ? `${owner}-${rng.pick(['llm', 'agent', 'rag', 'inference', 'vision'])}` : stem;
      const packageName = packageFor(ecosystem, owner, baseName);
      return {
        ...base, vendor: owner.replace(/-/g, '_'), vendorName: brand, product: baseName.replace(/-/g, '_'), productName: baseName,
        part: 'a', ecosystem, packageName, ai, distro: rng.chance(0.15),
        cna: rng.weighted([['github', 55], ['mitre', 20], ['vuldb', 10], ['snyk', 10], ['huntr', 5]]),
      };
    }
    case 'web': {
      const name = `${brand} ${rng.pick(PRODUCT_NOUNS)}`;
      return { ...base, product: slug(name), productName: name, part: 'a', cna: rng.chance(0.5) ? 'vuldb' : 'mitre' };
    }
    case 'device': {
      const model = `${rng.chars('ABCDEFGHKMNPRSTWX', 2)}-${rng.int(100, 9999)}`;
      const noun = rng.pick(DEVICE_NOUNS);
      return {
        ...base, product: `${slug(model)}_firmware`, productName: `${model} ${noun} firmware`, part: 'o',
        hardware: slug(model), cna: rng.weighted([['mitre', 45], ['vuldb', 35], [`vendor:${vendor}`, 20]]),
      };
    }
    case 'ics': {
      const name = `${rng.pick(['Modicon', 'Simatic', 'Ecoflex', 'Procon', 'Vision'])} ${rng.pick(ICS_NOUNS)} ${rng.int(10, 990)}`;
      return { ...base, product: slug(name), productName: name, part: rng.chance(0.5) ? 'a' : 'o', cna: rng.chance(0.7) ? 'icscert' : `vendor:${vendor}` };
    }
    case 'desktop':
    case 'app':
    default: {
      const name = `${brand} ${rng.pick(PRODUCT_NOUNS)}`;
      return {
        ...base, product: slug(name), productName: name, part: 'a', distro: kind === 'app' && rng.chance(0.15),
        versioning: rng.chance(0.2) ? 'build' : 'semver',
        cna: rng.weighted([['mitre', 55], [`vendor:${vendor}`, 25], ['vuldb', 10], ['jpcert', 5], ['vulncheck', 5]]),
      };
    }
  }
}

export class ProductCatalog {
  readonly products: Product[];
  private readonly zipf: ZipfSampler;

  /** `size` products; the head comes first, the rest is generated from the seed. */
  constructor(root: number, size: number) {
    const total = Math.max(size, HEAD.length + 50);
    const vendorPool = Math.max(20, Math.round(total / 3));
    this.products = HEAD.map(fromHead);
    for (let rank = this.products.length; rank < total; rank++) this.products.push(tailProduct(root, rank, vendorPool));
    // Zipf–Mandelbrot: the top few products carry ~0.6–0.8 % of all CVEs each (> 2,000 at
    // 340k CVEs), the tail product ~1 CVE.
    this.zipf = new ZipfSampler(total, 1, 12);
  }

  /** Expected share of all CVEs whose product has this rank. */
  share(rank: number): number {
    return this.zipf.share(rank);
  }

  sampleRank(rng: Rng): number {
    return this.zipf.sample(rng);
  }

  get(rank: number): Product {
    const p = this.products[rank];
    if (!p) throw new Error(`no product at rank ${rank}`);
    return p;
  }

  /** Ranks of products of one kind or vendor, for advisories that need such a product. */
  ranksWhere(test: (p: Product) => boolean): number[] {
    const out: number[] = [];
    this.products.forEach((p, i) => test(p) && out.push(i));
    return out;
  }
}

/** Catalog size for N CVEs: ~30,000 products at full scale, never fewer than ~400. */
export function catalogSize(n: number): number {
  return Math.max(400, Math.round(n * 0.09));
}
