CUDA_VISIBLE_DEVICES=0,1,2,3 torchrun --nproc_per_node 4 --nnodes 1 run_clm.py \
  --model_name_or_path meta-llama/Llama-3.2-1B \
  --per_device_train_batch_size 8 \
  --gradient_accumulation_steps 2 \
  --bf16 \
  --gradient_checkpointing \
  --optim adamw_torch_fused \
  --fsdp "full_shard auto_wrap" \
  --block_size 2048 \
  --output_dir /tmp/out
