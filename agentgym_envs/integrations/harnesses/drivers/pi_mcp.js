// A Pi extension that offers one MCP server's tools to Pi's model as Pi tools of its own.
//
// Pi has no MCP client by design. The Pi harness (agentgym_envs/integrations/harnesses/pi.py)
// loads this file with `pi -e`; it reads the server's URL and name from AGENTGYM_MCP_URL and
// AGENTGYM_MCP_NAME, speaks MCP's streamable HTTP transport with fetch (initialize, tools/list,
// tools/call; JSON or server-sent-event replies) and registers each tool as `<name>_<tool>` with
// the server's own description and JSON schema. A tool the server answers with `isError` is a
// failed Pi tool call (its text is the error).

const URL_ENV = "AGENTGYM_MCP_URL";
const NAME_ENV = "AGENTGYM_MCP_NAME";

class McpClient {
  constructor(url) {
    this.url = url;
    this.session = null;
    this.next = 1;
  }

  async request(method, params) {
    const id = this.next++;
    const reply = await this.post({ jsonrpc: "2.0", id, method, params });
    const message = await readMessage(reply, id);
    if (message.error) {
      throw new Error(`MCP ${method} failed: ${JSON.stringify(message.error)}`);
    }
    return message.result;
  }

  async notify(method, params) {
    const reply = await this.post({ jsonrpc: "2.0", method, params });
    await reply.text();
  }

  async post(body) {
    const headers = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    };
    if (this.session) headers["mcp-session-id"] = this.session;
    const reply = await fetch(this.url, { method: "POST", headers, body: JSON.stringify(body) });
    if (!reply.ok) {
      throw new Error(`MCP server ${this.url} answered HTTP ${reply.status}: ${await reply.text()}`);
    }
    this.session = reply.headers.get("mcp-session-id") || this.session;
    return reply;
  }
}

async function readMessage(reply, id) {
  const text = await reply.text();
  const type = reply.headers.get("content-type") || "";
  const payloads = type.includes("text/event-stream")
    ? text
        .split("\n")
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).trim())
    : [text];
  for (const payload of payloads) {
    let message;
    try {
      message = JSON.parse(payload);
    } catch {
      continue;
    }
    if (message && message.id === id) return message;
  }
  throw new Error(`no MCP reply to request ${id} in: ${text.slice(0, 300)}`);
}

function texts(result) {
  return (result.content || [])
    .filter((part) => part && part.type === "text")
    .map((part) => ({ type: "text", text: part.text }));
}

export default async function (pi) {
  const url = process.env[URL_ENV];
  if (!url) return;
  const server = process.env[NAME_ENV] || "mcp";
  const client = new McpClient(url);
  await client.request("initialize", {
    protocolVersion: "2025-03-26",
    capabilities: {},
    clientInfo: { name: "agentgym-pi-mcp", version: "1" },
  });
  await client.notify("notifications/initialized", {});
  const listed = await client.request("tools/list", {});
  for (const tool of listed.tools || []) {
    pi.registerTool({
      name: `${server}_${tool.name}`,
      label: `${server}: ${tool.name}`,
      description: tool.description || tool.name,
      parameters: tool.inputSchema || { type: "object", properties: {} },
      async execute(_id, params) {
        const result = await client.request("tools/call", {
          name: tool.name,
          arguments: params || {},
        });
        const content = texts(result);
        if (result.isError) {
          throw new Error(content.map((part) => part.text).join("\n") || "the tool failed");
        }
        return { content, details: {} };
      },
    });
  }
}
