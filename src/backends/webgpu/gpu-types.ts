/**
 * The slice of the WebGPU API this backend uses, declared here so the package type-checks
 * without DOM typings or the optional `webgpu` package. Names and shapes follow the WebGPU spec.
 */

/** `GPUBufferUsage` flags. */
export const BufferUsage = {
  MAP_READ: 0x0001,
  MAP_WRITE: 0x0002,
  COPY_SRC: 0x0004,
  COPY_DST: 0x0008,
  UNIFORM: 0x0040,
  STORAGE: 0x0080,
} as const;

/** `GPUMapMode.READ`. */
export const MAP_READ = 0x0001;

/** A GPU buffer. */
export interface GPUBuffer {
  readonly size: number;
  mapAsync(mode: number, offset?: number, size?: number): Promise<void>;
  getMappedRange(offset?: number, size?: number): ArrayBuffer;
  unmap(): void;
  destroy(): void;
}

/** Limits reported by an adapter or device (the ones this backend reads, plus any others). */
export interface GPUSupportedLimits {
  readonly maxStorageBufferBindingSize: number;
  readonly maxBufferSize: number;
  readonly maxComputeWorkgroupStorageSize: number;
  readonly maxComputeInvocationsPerWorkgroup: number;
  readonly maxComputeWorkgroupsPerDimension: number;
  readonly maxStorageBuffersPerShaderStage: number;
  readonly minUniformBufferOffsetAlignment: number;
  readonly [name: string]: unknown;
}

/** Adapter information. */
export interface GPUAdapterInfo {
  readonly vendor?: string;
  readonly architecture?: string;
  readonly device?: string;
  readonly description?: string;
}

/** A bind group layout (opaque). */
export type GPUBindGroupLayout = object;
/** A bind group (opaque). */
export type GPUBindGroup = object;
/** A shader module (opaque apart from compilation info). */
export interface GPUShaderModule {
  getCompilationInfo?(): Promise<{ messages: readonly { type: string; message: string; lineNum: number }[] }>;
}

/** A compute pipeline. */
export interface GPUComputePipeline {
  getBindGroupLayout(index: number): GPUBindGroupLayout;
}

/** A compute pass encoder. */
export interface GPUComputePassEncoder {
  setPipeline(pipeline: GPUComputePipeline): void;
  setBindGroup(index: number, group: GPUBindGroup): void;
  dispatchWorkgroups(x: number, y?: number, z?: number): void;
  end(): void;
}

/** A command buffer (opaque). */
export type GPUCommandBuffer = object;

/** A command encoder. */
export interface GPUCommandEncoder {
  beginComputePass(descriptor?: object): GPUComputePassEncoder;
  copyBufferToBuffer(src: GPUBuffer, srcOffset: number, dst: GPUBuffer, dstOffset: number, size: number): void;
  clearBuffer(buffer: GPUBuffer, offset?: number, size?: number): void;
  finish(): GPUCommandBuffer;
}

/** The device queue. */
export interface GPUQueue {
  submit(buffers: readonly GPUCommandBuffer[]): void;
  writeBuffer(buffer: GPUBuffer, offset: number, data: ArrayBufferView | ArrayBuffer): void;
  onSubmittedWorkDone(): Promise<void>;
}

/** A bind group entry: a (part of a) buffer. */
export interface GPUBindGroupEntry {
  binding: number;
  resource: { buffer: GPUBuffer; offset?: number; size?: number };
}

/** An error reported by an error scope or the uncaptured-error event. */
export interface GPUError {
  readonly message: string;
}

/** A logical device. */
export interface GPUDevice {
  readonly limits: GPUSupportedLimits;
  readonly features: ReadonlySet<string>;
  readonly queue: GPUQueue;
  readonly lost: Promise<{ reason: string; message: string }>;
  createBuffer(descriptor: { size: number; usage: number; mappedAtCreation?: boolean; label?: string }): GPUBuffer;
  createShaderModule(descriptor: { code: string; label?: string }): GPUShaderModule;
  createComputePipeline(descriptor: {
    layout: 'auto';
    compute: { module: GPUShaderModule; entryPoint: string };
  }): GPUComputePipeline;
  createBindGroup(descriptor: { layout: GPUBindGroupLayout; entries: readonly GPUBindGroupEntry[] }): GPUBindGroup;
  createCommandEncoder(): GPUCommandEncoder;
  pushErrorScope(filter: 'validation' | 'out-of-memory' | 'internal'): void;
  popErrorScope(): Promise<GPUError | null>;
  destroy(): void;
}

/** An adapter. */
export interface GPUAdapter {
  readonly features: ReadonlySet<string>;
  readonly limits: GPUSupportedLimits;
  readonly info?: GPUAdapterInfo;
  readonly isFallbackAdapter?: boolean;
  requestDevice(descriptor?: {
    requiredFeatures?: string[];
    requiredLimits?: Record<string, number>;
    label?: string;
  }): Promise<GPUDevice>;
}

/** `navigator.gpu`. */
export interface GPU {
  requestAdapter(options?: {
    powerPreference?: 'low-power' | 'high-performance';
    forceFallbackAdapter?: boolean;
  }): Promise<GPUAdapter | null>;
}
