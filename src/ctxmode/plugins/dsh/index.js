// ctxmode for DSH (DeepSeek Harness): a thin shim over ctxmode's Python rules.
//
// tools/pre-execute: ask Python; a `{kind: 'deny', reason}` answer is returned as is.
// tools/post-execute: let later listeners run, then ask Python about what the model would
// see; a `{kind: 'accept', content}` answer replaces it (never for a failed result: Python
// skips those). A system-prompt section carries the routing block with the tool names DSH
// really offers. Session events feed session memory: each user prompt is recorded, a
// compaction's start snapshots the session and its end puts the guide in DSH's runtime
// context before the next model request. Every decision is made in Python (`ctxmode hook dsh
// <event>`); when it fails or is slow, the call proceeds untouched and the failure is logged.
import Schema from '@deepseek-ai/schemastery'
import { openBridge } from './bridge.js'

export const name = 'ctxmode-dsh'
export const inject = ['tools', 'systemPrompt']

export const Config = Schema.object({
  enabled: Schema.boolean().default(true).description('Off: DSH behaves natively (the MCP server stays mounted).'),
  denyTools: Schema.array(Schema.string()).default(['web_fetch']).description('Tools denied before they run.'),
  truncateTools: Schema.array(Schema.string()).default(['pwsh', 'read', 'grep', 'glob'])
    .description('Tools whose oversized results become a notice (bash counts as pwsh).'),
  maxResultBytes: Schema.natural().default(20000).description('Results up to this size pass through.'),
  maxResultBytesPerTool: Schema.dict(Schema.natural()).default({ grep: 8000 })
    .description('A tool\'s own limit instead of maxResultBytes (grep: its matches stay searchable).'),
  minCommandBytes: Schema.natural().default(0).description('Shell commands shorter than this skip routing.'),
  readThresholdBytes: Schema.natural().default(50000).description('A read of a bigger file gets guidance.'),
  interceptSubagent: Schema.boolean().default(false).description('Also route subagents\' calls.'),
  sectionOrder: Schema.number().default(3090).description('Where the routing section goes (MCP servers: 3100).'),
  serverName: Schema.string().default('').description('The ctxmode MCP server; empty: detect it.'),
})

const TIMEOUT_MS = {
  'pre-execute': 3000, 'post-execute': 20000, 'system-prompt': 3000,
  'user-prompt': 5000, 'pre-compact': 20000, compacted: 20000,
}
const GUIDE_CONTEXT_ORDER = 300 // after DSH's own runtime-context parts (the last is 210)
const GUIDE_WAIT_MS = 5000 // longest a model request waits for the session guide after a compaction
const MAX_VALUE_STRING = 2000 // longer strings of a result's value are cut (DSH's grep line cap)

function toolNames(ctx) {
  try { return [...ctx.tools.view().visible.keys()] } catch { return [] }
}

// The MCP servers behind the registry's `mcp__<server>__<tool>` names (ours included: the
// rules tell it apart), so another server's bulky result gets a notice too.
function mcpServers(tools) {
  return [...new Set(tools.filter((name) => name.startsWith('mcp__'))
    .map((name) => name.slice(5).split('__')[0]).filter(Boolean))]
}

function briefValue(value) {
  if (value === undefined) return undefined
  try {
    return JSON.parse(JSON.stringify(value, (key, item) =>
      typeof item === 'string' && item.length > MAX_VALUE_STRING ? item.slice(0, MAX_VALUE_STRING) : item))
  } catch { return undefined }
}

function isSubagentSession(header) {
  return header.origin === 'subagent' || Boolean(header.parentSession)
}

function callPayload(ctx, config, exec) {
  const agent = exec.agent || {}
  const subagent = (agent.options?.subagentDepth ?? 0) > 0 || isSubagentSession(agent.session?.header ?? {})
  const tools = toolNames(ctx)
  return {
    tool: exec.name,
    input: exec.arguments,
    callId: exec.callId,
    sessionId: agent.session?.id ?? agent.id ?? '',
    agentId: subagent ? String(agent.id ?? 'subagent') : '',
    cwd: process.cwd(),
    tools,
    mcpServers: mcpServers(tools),
    config,
  }
}

export function apply(ctx, config) {
  let bridge
  try {
    ({ bridge } = openBridge(import.meta.url))
  } catch (error) {
    console.warn(`ctxmode: not active (${error}); run \`ctxmode setup dsh\` again`)
    return
  }
  ctx.effect(() => () => bridge.close())

  ctx.on('tools/pre-execute', async (exec, next) => {
    if (!config.enabled) return next()
    const answer = await bridge.ask('pre-execute', callPayload(ctx, config, exec), TIMEOUT_MS['pre-execute'])
    if (answer?.kind === 'deny' && typeof answer.reason === 'string') return { kind: 'deny', reason: answer.reason }
    return next()
  })

  ctx.on('tools/post-execute', async (exec, result, next) => {
    const decision = await next()
    if (!config.enabled || decision?.kind !== 'accept' || Object.hasOwn(decision, 'value')) return decision
    // What the model would see: the result, or the content a later listener put in its
    // place (DSH's own grep does so past 250 matches).
    const content = Object.hasOwn(decision, 'content') ? decision.content : result.content
    const payload = callPayload(ctx, config, exec)
    payload.result = { content, isError: result.isError === true, value: briefValue(result.value) }
    const answer = await bridge.ask('post-execute', payload, TIMEOUT_MS['post-execute'])
    if (result.isError || answer?.kind !== 'accept' || !Array.isArray(answer.content)) return decision
    return { ...decision, content: answer.content }
  })

  // Session memory from the session log: DSH has no prompt or compaction hook of its own.
  // The guide is fetched once the compaction ended; DSH retries the request that overflowed
  // right away, so each model request first waits (bounded) for a fetch in flight.
  const guide = { text: '', ready: Promise.resolve() }
  let snapshot = Promise.resolve()
  ctx.on('session/event', (session, event) => {
    try {
      const header = session?.header ?? {}
      if (!config.enabled || (isSubagentSession(header) && !config.interceptSubagent)) return
      const base = { sessionId: header.id ?? '', cwd: process.cwd(), tools: toolNames(ctx), config }
      if (event?.type === 'user/message' && event.data?.source?.kind === 'user') {
        bridge.ask('user-prompt', { ...base, prompt: event.data.content }, TIMEOUT_MS['user-prompt'])
      } else if (event?.type === 'compaction/start') {
        snapshot = bridge.ask('pre-compact', base, TIMEOUT_MS['pre-compact'])
      } else if (event?.type === 'compaction/end') {
        guide.ready = snapshot.then(() => bridge.ask('compacted', base, TIMEOUT_MS.compacted)).then((answer) => {
          guide.text = typeof answer?.section === 'string' ? answer.section : ''
        })
      }
    } catch (error) {
      bridge.log(`session/event: ${error}`)
    }
  })
  ctx.on('agent/request', async (request, next) => {
    await Promise.race([guide.ready, new Promise((resolve) => setTimeout(resolve, GUIDE_WAIT_MS).unref())])
    return next()
  })
  // In DSH's runtime context (the user message it refreshes on every request, also the one
  // retried after a compaction), not the system prompt, which is fixed for a whole step.
  ctx.effect(() => ctx.systemPrompt.context({
    name: 'ctxmode-session-guide',
    order: GUIDE_CONTEXT_ORDER,
    required: true, // also where a profile turns optional runtime context off
    interpolate: false, // the guide quotes the user: a `{{x}}` in it is no prompt variable
    text: () => (config.enabled ? guide.text : ''),
  }))

  let section = { key: null, text: '' }
  ctx.effect(() => ctx.systemPrompt.section({
    name: 'ctxmode-routing',
    order: config.sectionOrder,
    interpolate: false,
    text: () => {
      if (!config.enabled) return ''
      const tools = toolNames(ctx)
      const key = tools.join('\n')
      if (section.key !== key) {
        const answer = bridge.askSync('system-prompt', { tools, config, cwd: process.cwd() }, TIMEOUT_MS['system-prompt'])
        section = { key, text: typeof answer?.section === 'string' ? answer.section : '' }
      }
      return section.text
    },
  }))
}
