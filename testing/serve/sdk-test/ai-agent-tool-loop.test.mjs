// The official TypeScript SDK drives the ai-agent-tool-loop template against `baton serve`:
// deploy, create, real SDK workers for the tools, baton's AI Agent mock for the model, and
// reads — with the SDK's response validation at CAMUNDA_SDK_VALIDATION (strict or fanatical).
//
// Needs a running server: BATON_SERVE_URL (default http://127.0.0.1:8080).

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import createCamundaClient from '@camunda8/orchestration-cluster-api';

const url = process.env.BATON_SERVE_URL ?? 'http://127.0.0.1:8080';
const template = fileURLToPath(
  new URL('../../../templates/ai-agent-tool-loop/ai-agent-tool-loop.bpmn', import.meta.url),
);
const camunda = createCamundaClient({
  config: {
    CAMUNDA_REST_ADDRESS: url,
    CAMUNDA_AUTH_STRATEGY: 'NONE',
    CAMUNDA_SDK_VALIDATION: process.env.CAMUNDA_SDK_VALIDATION ?? 'res:strict,req:strict',
    CAMUNDA_SDK_LOG_LEVEL: 'error',
  },
});

after(() => camunda.stopAllWorkers());

// baton's own route: the model's turns for the agent element (never under /v2).
async function mockAgent(elementId, turns) {
  const response = await fetch(`${url}/baton/mocks/agents/${elementId}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ turns }),
  });
  assert.equal(response.status, 204, await response.text());
}

async function until(what, check, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('topology and license read under strict validation', async () => {
  const topology = await camunda.getTopology();
  assert.equal(topology.brokers[0].partitions[0].health, 'healthy');
  const license = await camunda.getLicense();
  assert.equal(license.isCommercial, false);
});

test('the support agent calls real SDK workers and answers the customer', async () => {
  const deployment = await camunda.deployResourcesFromFiles([template]);
  const definition = deployment.processes.find((p) => p.processDefinitionId === 'ai-agent-tool-loop');
  assert.ok(definition, JSON.stringify(deployment));

  await mockAgent('support-agent', [
    { toolCalls: [
      { name: 'lookup-order', arguments: { orderId: '1042' } },
      { name: 'search-kb', arguments: { query: 'damaged item return' } },
    ] },
    { toolCalls: [{ name: 'create-ticket', arguments: { summary: 'Order 1042 arrived damaged' } }] },
    { responseJson: { answer: 'Ticket T-77 is open.', resolved: true } },
  ]);

  const seen = [];
  const worker = (jobType, variables) =>
    camunda.createJobWorker({
      jobType,
      jobTimeoutMs: 30_000,
      pollIntervalMs: 10,
      maxParallelJobs: 4,
      jobHandler: async (job) => {
        seen.push(jobType);
        return job.complete(variables);
      },
    });
  worker('order-lookup', { order: { id: '1042', status: 'delivered', damaged: true } });
  worker('kb-search', { articles: ['Returns and damaged items'] });
  worker('ticket-create', { ticketId: 'T-77' });
  worker('email-send', {});

  const created = await camunda.createProcessInstance({
    processDefinitionId: 'ai-agent-tool-loop',
    variables: { customerMessage: 'My order 1042 arrived broken.', customerEmail: 'kim@example.com' },
  });
  assert.equal(typeof created.processInstanceKey, 'string');

  const done = await until('the instance to complete', async () => {
    const instance = await camunda.getProcessInstance(
      { processInstanceKey: created.processInstanceKey },
      { consistency: { waitUpToMs: 0 } },
    );
    return instance.state === 'COMPLETED' ? instance : undefined;
  });
  assert.equal(done.processDefinitionId, 'ai-agent-tool-loop');
  assert.equal(done.hasIncident, false);
  assert.deepEqual([...seen].sort(), ['email-send', 'kb-search', 'order-lookup', 'ticket-create']);

  const now = { consistency: { waitUpToMs: 0 } };
  const elements = await camunda.searchElementInstances(
    { filter: { processInstanceKey: created.processInstanceKey, elementId: 'support-agent' } },
    now,
  );
  assert.equal(elements.items.length, 1);
  assert.equal(elements.items[0].state, 'COMPLETED');
  const variables = await camunda.searchVariables(
    { filter: { processInstanceKey: created.processInstanceKey, name: 'customerEmail' } },
    now,
  );
  assert.equal(variables.items[0].value, '"kim@example.com"');
  const instances = await camunda.searchProcessInstances(
    { filter: { processDefinitionId: 'ai-agent-tool-loop', state: 'COMPLETED' }, page: { limit: 10 } },
    now,
  );
  assert.ok(instances.items.some((i) => i.processInstanceKey === created.processInstanceKey));
  camunda.stopAllWorkers();
});

test('a failing tool raises an incident; resolved, the agent goes on and a person answers', async () => {
  const now = { consistency: { waitUpToMs: 0 } };
  await mockAgent('support-agent', [
    { toolCalls: [{ name: 'lookup-order', arguments: { orderId: '7' } }] },
    { responseJson: { answer: 'I could not find your order.', resolved: false } },
  ]);
  let calls = 0;
  camunda.createJobWorker({
    jobType: 'order-lookup',
    jobTimeoutMs: 30_000,
    pollIntervalMs: 10,
    maxParallelJobs: 1,
    jobHandler: async (job) => {
      calls += 1;
      if (calls === 1) return job.fail({ errorMessage: 'order service down', retries: 0 });
      return job.complete({ order: { id: '7', status: 'unknown' } });
    },
  });
  const created = await camunda.createProcessInstance({
    processDefinitionId: 'ai-agent-tool-loop',
    variables: { customerMessage: 'Where is order 7?' },
  });
  const incident = await until('the incident', async () => {
    const found = await camunda.searchIncidents(
      { filter: { processInstanceKey: created.processInstanceKey } },
      now,
    );
    return found.items[0];
  });
  assert.equal(incident.errorType, 'JOB_NO_RETRIES');
  assert.equal(incident.errorMessage, 'order service down');
  await camunda.updateJob({ jobKey: incident.jobKey, changeset: { retries: 1 } });
  await camunda.resolveIncident({ incidentKey: incident.incidentKey });

  const task = await until('the user task', async () => {
    const found = await camunda.searchUserTasks(
      { filter: { processInstanceKey: created.processInstanceKey, state: 'CREATED' } },
      now,
    );
    return found.items[0];
  });
  assert.equal(task.elementId, 'queue-for-human');
  assert.deepEqual(task.candidateGroups, ['support']);
  await camunda.completeUserTask({ userTaskKey: task.userTaskKey, variables: { answeredBy: 'kim' } });
  await until('the instance to complete', async () => {
    const instance = await camunda.getProcessInstance({ processInstanceKey: created.processInstanceKey }, now);
    return instance.state === 'COMPLETED';
  });
  camunda.stopAllWorkers();
});

test('awaitCompletion answers with the variables once the workers are done', async () => {
  await mockAgent('support-agent', [{ responseJson: { answer: 'All good.', resolved: true } }]);
  camunda.createJobWorker({
    jobType: 'email-send',
    jobTimeoutMs: 30_000,
    pollIntervalMs: 10,
    maxParallelJobs: 1,
    jobHandler: async (job) => job.complete({}),
  });
  const result = await camunda.createProcessInstance({
    processDefinitionId: 'ai-agent-tool-loop',
    variables: { customerMessage: 'Thanks!' },
    awaitCompletion: true,
    fetchVariables: ['agent'],
    requestTimeout: 10_000,
  });
  assert.equal(result.variables.agent.responseJson.answer, 'All good.');
});

test('an unknown process is a 404 problem in Zeebe words', async () => {
  await assert.rejects(
    camunda.createProcessInstance({ processDefinitionId: 'no-such-process' }),
    (error) => {
      assert.equal(error.status, 404);
      assert.match(String(error.detail ?? error.message), /Expected to find process definition with process ID 'no-such-process'/);
      return true;
    },
  );
});
