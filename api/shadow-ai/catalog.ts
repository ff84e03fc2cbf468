/**
 * The shadow-AI radar's catalog: AI/ML software that tends to run unnoticed (a notebook server
 * on a laptop, a model server on a GPU box, an agent framework in a side project), and how to
 * recognise it in the snapshot.
 *
 * Each component is recognised by any of:
 *   products   (vendor_key, product_key) pairs of the `products` table: CPE and CVE-record
 *              `affected[]` names, normalised lower case with spaces as `_`. `repo('o/r')`
 *              adds both spellings a GitHub-hosted project gets: (o, r) as NVD's CPE names it
 *              and (o, o/r) as CNAs such as huntr.dev name it.
 *   packages   (ecosystem, name) of the `affected_packages` table (OSV/GHSA), compared case-
 *              insensitively; a package named by a CVE record without a known ecosystem
 *              matches on the name.
 *   advisory   a regular expression (RE2, matched against the lower-cased product names of
 *              vendor advisories). Keep these specific: `\bray\b` would catch "X-Ray".
 *
 * To extend the catalog, add an entry below (docs/api-resources.md walks through it): a new
 * `id` becomes a valid `component` value, and the radar picks it up with the next server start.
 */

export type ShadowAiCategory = 'framework' | 'model_server' | 'llm_sdk' | 'agent_app';

export interface ShadowAiComponent {
  /** Stable slug; the value of the radar's `component` parameter. */
  id: string;
  name: string;
  category: ShadowAiCategory;
  products: readonly (readonly [vendorKey: string, productKey: string])[];
  packages: readonly (readonly [ecosystem: string, name: string])[];
  advisory: readonly string[];
}

/** Both product spellings of a GitHub-hosted project (see the header). */
function repo(ownerSlashName: string): [string, string][] {
  const [owner, name] = ownerSlashName.toLowerCase().split('/') as [string, string];
  return [
    [owner, name],
    [owner, `${owner}/${name}`],
  ];
}

const pypi = (...names: string[]) => names.map((n) => ['PyPI', n] as const);
const npm = (...names: string[]) => names.map((n) => ['npm', n] as const);
const go = (...names: string[]) => names.map((n) => ['Go', n] as const);
const nuget = (...names: string[]) => names.map((n) => ['NuGet', n] as const);

export const SHADOW_AI_CATALOG: readonly ShadowAiComponent[] = [
  // AI frameworks
  {
    id: 'pytorch',
    name: 'PyTorch',
    category: 'framework',
    products: [['pytorch', 'pytorch'], ['linuxfoundation', 'pytorch'], ...repo('pytorch/pytorch')],
    packages: pypi('torch'),
    advisory: ['\\bpytorch\\b', '\\bpython3?-torch\\b'],
  },
  {
    id: 'tensorflow',
    name: 'TensorFlow',
    category: 'framework',
    products: [['google', 'tensorflow'], ...repo('tensorflow/tensorflow')],
    packages: pypi('tensorflow', 'tensorflow-cpu', 'tensorflow-gpu', 'tf-nightly', 'tensorflow-intel'),
    advisory: ['\\btensorflow\\b'],
  },
  {
    id: 'keras',
    name: 'Keras',
    category: 'framework',
    products: [['keras', 'keras'], ['google', 'keras'], ...repo('keras-team/keras')],
    packages: pypi('keras', 'tf-keras'),
    advisory: ['\\bkeras\\b'],
  },
  {
    id: 'jax',
    name: 'JAX',
    category: 'framework',
    products: [['google', 'jax'], ...repo('jax-ml/jax'), ...repo('google/jax')],
    packages: pypi('jax', 'jaxlib'),
    advisory: ['\\bjaxlib\\b', '\\bgoogle jax\\b'],
  },
  {
    id: 'transformers',
    name: 'Hugging Face Transformers',
    category: 'framework',
    products: [['huggingface', 'transformers'], ...repo('huggingface/transformers')],
    packages: pypi('transformers'),
    advisory: ['\\bhugging ?face transformers\\b', '\\bpython3?-transformers\\b'],
  },
  {
    id: 'onnx',
    name: 'ONNX / ONNX Runtime',
    category: 'framework',
    products: [['linuxfoundation', 'onnx'], ['onnx', 'onnx'], ['microsoft', 'onnxruntime'], ...repo('onnx/onnx'), ...repo('microsoft/onnxruntime')],
    packages: [...pypi('onnx', 'onnxruntime', 'onnxruntime-gpu'), ...npm('onnxruntime-web', 'onnxruntime-node')],
    advisory: ['\\bonnx(runtime)?\\b'],
  },
  // Model servers
  {
    id: 'ollama',
    name: 'Ollama',
    category: 'model_server',
    products: [['ollama', 'ollama'], ...repo('ollama/ollama')],
    packages: go('github.com/ollama/ollama'),
    advisory: ['\\bollama\\b'],
  },
  {
    id: 'vllm',
    name: 'vLLM',
    category: 'model_server',
    products: [['vllm', 'vllm'], ['vllm-project', 'vllm'], ...repo('vllm-project/vllm')],
    packages: pypi('vllm'),
    advisory: ['\\bvllm\\b'],
  },
  {
    id: 'triton-inference-server',
    name: 'NVIDIA Triton Inference Server',
    category: 'model_server',
    products: [['nvidia', 'triton_inference_server'], ['nvidia', 'triton'], ...repo('triton-inference-server/server')],
    packages: pypi('tritonclient'),
    advisory: ['\\btriton inference server\\b'],
  },
  {
    id: 'torchserve',
    name: 'TorchServe',
    category: 'model_server',
    products: [['pytorch', 'torchserve'], ['linuxfoundation', 'torchserve'], ...repo('pytorch/serve')],
    packages: pypi('torchserve'),
    advisory: ['\\btorchserve\\b'],
  },
  {
    id: 'text-generation-inference',
    name: 'Hugging Face Text Generation Inference',
    category: 'model_server',
    products: [['huggingface', 'text_generation_inference'], ['huggingface', 'text-generation-inference'], ...repo('huggingface/text-generation-inference')],
    packages: pypi('text-generation-server'),
    advisory: ['\\btext[- ]generation[- ]inference\\b'],
  },
  {
    id: 'llama-cpp',
    name: 'llama.cpp',
    category: 'model_server',
    products: [['ggerganov', 'llama.cpp'], ['ggml', 'llama.cpp'], ...repo('ggerganov/llama.cpp'), ...repo('ggml-org/llama.cpp'), ...repo('abetlen/llama-cpp-python')],
    packages: pypi('llama-cpp-python'),
    advisory: ['\\bllama\\.cpp\\b', '\\bllama-cpp\\b'],
  },
  {
    id: 'localai',
    name: 'LocalAI',
    category: 'model_server',
    products: [['localai', 'localai'], ['mudler', 'localai'], ...repo('mudler/localai'), ...repo('go-skynet/localai')],
    packages: go('github.com/mudler/localai', 'github.com/go-skynet/localai'),
    advisory: ['\\blocalai\\b'],
  },
  {
    id: 'bentoml',
    name: 'BentoML',
    category: 'model_server',
    products: [['bentoml', 'bentoml'], ...repo('bentoml/bentoml')],
    packages: pypi('bentoml'),
    advisory: ['\\bbentoml\\b'],
  },
  // LLM SDKs and frameworks
  {
    id: 'langchain',
    name: 'LangChain',
    category: 'llm_sdk',
    products: [['langchain', 'langchain'], ['langchain-ai', 'langchain'], ...repo('langchain-ai/langchain'), ...repo('langchain-ai/langchainjs'), ...repo('hwchase17/langchain')],
    packages: [
      ...pypi('langchain', 'langchain-core', 'langchain-community', 'langchain-experimental', 'langchain-text-splitters'),
      ...npm('langchain', '@langchain/core', '@langchain/community'),
    ],
    advisory: ['\\blangchain\\b'],
  },
  {
    id: 'llama-index',
    name: 'LlamaIndex',
    category: 'llm_sdk',
    products: [['llamaindex', 'llamaindex'], ['llamaindex', 'llama_index'], ...repo('run-llama/llama_index'), ...repo('jerryjliu/llama_index')],
    packages: [...pypi('llama-index', 'llama_index', 'llama-index-core', 'llama-index-legacy'), ...npm('llamaindex')],
    advisory: ['\\bllama[-_ ]?index\\b'],
  },
  {
    id: 'openai-sdk',
    name: 'OpenAI SDK',
    category: 'llm_sdk',
    products: [...repo('openai/openai-python'), ...repo('openai/openai-node')],
    packages: [...pypi('openai'), ...npm('openai')],
    advisory: ['\\bopenai\\b'],
  },
  {
    id: 'anthropic-sdk',
    name: 'Anthropic SDK',
    category: 'llm_sdk',
    products: [...repo('anthropics/anthropic-sdk-python'), ...repo('anthropics/anthropic-sdk-typescript')],
    packages: [...pypi('anthropic'), ...npm('@anthropic-ai/sdk')],
    advisory: ['\\banthropic\\b'],
  },
  {
    id: 'litellm',
    name: 'LiteLLM',
    category: 'llm_sdk',
    products: [['berriai', 'litellm'], ['litellm', 'litellm'], ...repo('berriai/litellm')],
    packages: pypi('litellm'),
    advisory: ['\\blitellm\\b'],
  },
  {
    id: 'semantic-kernel',
    name: 'Semantic Kernel',
    category: 'llm_sdk',
    products: [['microsoft', 'semantic_kernel'], ['microsoft', 'semantic-kernel'], ...repo('microsoft/semantic-kernel')],
    packages: [...pypi('semantic-kernel'), ...nuget('microsoft.semantickernel', 'microsoft.semantickernel.core')],
    advisory: ['\\bsemantic[- ]kernel\\b'],
  },
  {
    id: 'haystack',
    name: 'Haystack',
    category: 'llm_sdk',
    products: [['deepset', 'haystack'], ...repo('deepset-ai/haystack')],
    packages: pypi('haystack-ai', 'farm-haystack'),
    advisory: ['\\bdeepset haystack\\b', '\\bhaystack-ai\\b'],
  },
  // Agents and AI applications
  {
    id: 'autogen',
    name: 'AutoGen',
    category: 'agent_app',
    products: [['microsoft', 'autogen'], ...repo('microsoft/autogen')],
    packages: pypi('pyautogen', 'autogen-agentchat', 'autogen-core'),
    advisory: ['\\bautogen\\b'],
  },
  {
    id: 'crewai',
    name: 'CrewAI',
    category: 'agent_app',
    products: [['crewai', 'crewai'], ...repo('crewaiinc/crewai'), ...repo('joaomdmoura/crewai')],
    packages: pypi('crewai'),
    advisory: ['\\bcrewai\\b'],
  },
  {
    id: 'flowise',
    name: 'Flowise',
    category: 'agent_app',
    products: [['flowiseai', 'flowise'], ...repo('flowiseai/flowise')],
    packages: npm('flowise', 'flowise-components'),
    advisory: ['\\bflowise\\b'],
  },
  {
    id: 'langflow',
    name: 'Langflow',
    category: 'agent_app',
    products: [['langflow', 'langflow'], ['langflow-ai', 'langflow'], ...repo('langflow-ai/langflow'), ...repo('logspace-ai/langflow')],
    packages: pypi('langflow', 'langflow-base'),
    advisory: ['\\blangflow\\b'],
  },
  {
    id: 'open-webui',
    name: 'Open WebUI',
    category: 'agent_app',
    products: [['open-webui', 'open-webui'], ['openwebui', 'open_webui'], ['openwebui', 'open-webui'], ...repo('open-webui/open-webui')],
    packages: pypi('open-webui'),
    advisory: ['\\bopen[- ]?webui\\b'],
  },
  {
    id: 'gradio',
    name: 'Gradio',
    category: 'agent_app',
    products: [['gradio_project', 'gradio'], ['gradio', 'gradio'], ...repo('gradio-app/gradio')],
    packages: pypi('gradio', 'gradio-client'),
    advisory: ['\\bgradio\\b'],
  },
  {
    id: 'mlflow',
    name: 'MLflow',
    category: 'agent_app',
    products: [['lfprojects', 'mlflow'], ['mlflow', 'mlflow'], ['databricks', 'mlflow'], ...repo('mlflow/mlflow')],
    packages: pypi('mlflow', 'mlflow-skinny'),
    advisory: ['\\bmlflow\\b'],
  },
  {
    id: 'ray',
    name: 'Ray',
    category: 'agent_app',
    products: [['anyscale', 'ray'], ['ray_project', 'ray'], ...repo('ray-project/ray'), ...repo('ray-project/kuberay')],
    packages: pypi('ray'),
    advisory: ['\\banyscale ray\\b', '\\bkuberay\\b'],
  },
  {
    id: 'jupyter',
    name: 'Jupyter (Notebook, JupyterLab, Jupyter Server, JupyterHub)',
    category: 'agent_app',
    products: [
      ['jupyter', 'notebook'],
      ['jupyter', 'jupyterlab'],
      ['jupyter', 'jupyter_server'],
      ['jupyter', 'jupyterhub'],
      ['jupyter', 'nbconvert'],
      ['jupyter', 'jupyter_notebook'],
      ...repo('jupyter/notebook'),
      ...repo('jupyterlab/jupyterlab'),
      ...repo('jupyter-server/jupyter_server'),
      ...repo('jupyterhub/jupyterhub'),
    ],
    packages: pypi('notebook', 'jupyterlab', 'jupyter-server', 'jupyter_server', 'jupyterhub', 'nbconvert'),
    advisory: ['\\bjupyter'],
  },
  {
    id: 'kubeflow',
    name: 'Kubeflow',
    category: 'agent_app',
    products: [['kubeflow', 'kubeflow'], ...repo('kubeflow/kubeflow'), ...repo('kubeflow/pipelines')],
    packages: pypi('kfp'),
    advisory: ['\\bkubeflow\\b'],
  },
];

export const SHADOW_AI_COMPONENT_IDS: ReadonlySet<string> = new Set(SHADOW_AI_CATALOG.map((c) => c.id));
