// A page that follows a task with omnimedia/tasks and omnimedia/otel, its spans recorded by
// OpenTelemetry's SDK in the page. Bundled by esbuild (platform browser); window.traceTask(baseURL, taskId).
import * as api from '@opentelemetry/api';
import * as sdk from '@opentelemetry/sdk-trace';
import { OmniMedia } from 'omnimedia';
import { openTelemetry } from 'omnimedia/otel';
import { TasksClient } from 'omnimedia/tasks';
import { runOtelFlow } from '../flows/otel-flow.mjs';

window.traceTask = (baseURL) => runOtelFlow({ OmniMedia, openTelemetry, api, sdk, baseURL, runtime: 'chromium', TasksClient });
